// The kit's split types, for the CommonJS side of this plugin.
export type Part = import("@transync/client", { with: { "resolution-mode": "import" }}).Part;
export type Split = import("@transync/client", { with: { "resolution-mode": "import" }}).Split;
export type SplitSegment = import("@transync/client", { with: { "resolution-mode": "import" }}).SplitSegment;
export type Translations = import("@transync/client", { with: { "resolution-mode": "import" }}).Translations;
