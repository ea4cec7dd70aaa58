// The admin panel's part of the plugin: a Transync page in the main menu (for admins with the
// plugin's read permission) and a panel in the content manager's edit view.
import { EditViewPanel } from "./components/EditViewPanel";
import { Logo } from "./components/Logo";
import { PLUGIN_ID, READ } from "./shared";

// biome-ignore lint/suspicious/noExplicitAny: the StrapiApp instance handed to a plugin's admin part.
type App = any;

export default {
  register(app: App) {
    app.addMenuLink({
      to: `plugins/${PLUGIN_ID}`,
      icon: Logo,
      intlLabel: { id: `${PLUGIN_ID}.plugin.name`, defaultMessage: "Transync" },
      permissions: [{ action: READ, subject: null }],
      Component: () => import("./pages/HomePage").then((mod) => ({ default: mod.HomePage })),
    });
    app.registerPlugin({ id: PLUGIN_ID, name: "Transync" });
  },
  bootstrap(app: App) {
    const apis = app.getPlugin("content-manager")?.apis;
    if (apis && typeof apis.addEditViewSidePanel === "function") apis.addEditViewSidePanel([EditViewPanel]);
  },
  async registerTrads() {
    return [];
  },
};
