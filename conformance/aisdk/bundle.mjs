// Bundles page.jsx for the browser: node bundle.mjs <out.js>.
import { build } from "esbuild";

await build({
  entryPoints: [new URL("./page.jsx", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  jsx: "automatic",
  minify: true,
  define: { "process.env.NODE_ENV": '"production"' },
  outfile: process.argv[2],
  logLevel: "warning",
});
console.log("bundled " + process.argv[2]);
