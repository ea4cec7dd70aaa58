import { createApp } from "./app";

export { SiteObject } from "./site/object";

export default createApp() satisfies ExportedHandler<Env>;
