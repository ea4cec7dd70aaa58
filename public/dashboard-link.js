/*
 * The dashboard's one script, on the pages one-time links open (password reset, address
 * confirmation, the sign-in link after a pause, invitations). The link carries its token after
 * "#", which browsers never send to a server, so no request line or request log holds it
 * (docs/decisions.md, "One-time tokens stay out of request lines"). This puts the token in the
 * page's code field, takes it out of the address bar and the history, and continues. Without
 * JavaScript, the field asks for the code the mail prints under the link.
 */
(() => {
  const form = document.querySelector("form[data-link-code]");
  const field = form?.querySelector('input[name="token"]');
  const token = location.hash.slice(1);
  if (!field || !/^[A-Za-z0-9_-]{20,200}$/.test(token)) return;
  history.replaceState(null, "", location.pathname + location.search);
  field.value = token;
  form.submit();
})();
