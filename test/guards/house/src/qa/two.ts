import { one } from "./one";

export const two = () => `two, then ${one.name}`;
