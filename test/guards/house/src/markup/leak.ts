// The Worker importing a test tool.
import { vi } from "vitest";

export const leak = vi;
