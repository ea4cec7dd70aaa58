// The kit's split types, for the CommonJS side of this plugin.
export type { Part, Split, SplitSegment, Translations } from "@transync/client" with { "resolution-mode": "import" };
