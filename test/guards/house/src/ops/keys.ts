export const opsName = "ops";
