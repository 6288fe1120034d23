// Vite's `?raw` imports: a file's text, as a string (used to read docs/ files in workerd tests).
declare module '*?raw' {
  const text: string;
  export default text;
}
