/** Vite's `?raw` imports (file contents as a string), used to check configuration in tests. */
declare module "*?raw" {
  const text: string;
  export default text;
}
