// Files imported `with { type: "text" }` are embedded in the bundle as strings.
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*/docs.js" {
  const text: string;
  export default text;
}
