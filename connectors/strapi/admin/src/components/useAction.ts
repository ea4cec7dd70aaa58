// An admin action of the page and the panel: busy while it runs, a notification of how it went,
// then what is shown loaded again.
import { useNotification } from "@strapi/strapi/admin";
import * as React from "react";
import { errorText } from "../shared";

export function useAction(reload: () => Promise<void>) {
  const { toggleNotification } = useNotification();
  const [busy, setBusy] = React.useState(false);
  const act = async (what: () => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      await what();
      toggleNotification({ type: "success", message: done });
    } catch (error) {
      toggleNotification({ type: "danger", message: errorText(error) });
    } finally {
      setBusy(false);
      await reload();
    }
  };
  return { busy, act };
}
