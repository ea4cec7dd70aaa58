import { Layout, type Viewer } from "./layout";

const TITLES: Record<number, string> = {
  400: "That request did not make sense",
  402: "Hosted translation is not available",
  403: "You cannot do this here",
  404: "Page not found",
  409: "That needs confirming first",
  413: "That upload is too large",
  422: "Please check what you entered",
  429: "Too many requests",
  500: "Something went wrong on our side",
};

export function ErrorPage(props: { status: number; detail: string; viewer?: Viewer | null; back?: string }) {
  return (
    <Layout title={TITLES[props.status] ?? "Error"} viewer={props.viewer}>
      <section class="narrow card">
        <h1>{TITLES[props.status] ?? "Error"}</h1>
        <p>{props.detail}</p>
        <p>
          <a href={props.back ?? "/dashboard"}>{props.back ? "Go back" : "Go to your organizations and sites"}</a>
        </p>
      </section>
    </Layout>
  );
}
