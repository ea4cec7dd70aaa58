export const page = "page";
