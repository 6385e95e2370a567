import { describe, expect, it } from "vitest";

// The folders of src/ are layers, and imports go one way only: views draw from state, state
// holds the game and the app with no DOM, network speaks the protocol, and generated/ is written
// by scripts from the Python side. main.ts and app.ts, at the top, wire them together.

// Every file of src/ by its path there ("state/catalog.ts"), with its text (Vite reads them).
const TEXTS: Record<string, string> = Object.fromEntries(
  Object.entries(import.meta.glob<string>("../src/**/*", { query: "?raw", import: "default", eager: true })).map(([path, text]) => [
    path.replace(/^\.\.\/src\//, ""),
    text,
  ]),
);

// What each folder may import besides itself.
const MAY_IMPORT: Record<string, string[]> = {
  generated: [],
  network: ["generated"],
  state: ["network", "generated"],
  views: ["state", "network", "generated", "app.ts"],
};

/** The first folder of a path inside src/ (or the file's name, at its top). */
function layerOf(path: string): string {
  return path.split("/")[0];
}

/** A relative import of the file at `path`, as a path inside src/ (with its ending). */
function resolveImport(path: string, spec: string): string {
  const parts = path.split("/").slice(0, -1);
  for (const part of spec.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  const target = parts.join("/");
  return /\.(ts|css)$/.test(target) ? target : `${target}.ts`;
}

function importsOf(path: string): string[] {
  return [...TEXTS[path].matchAll(/(?:from|import)\s+"(\.{1,2}\/[^"]+)"/g)].map((m) => resolveImport(path, m[1]));
}

/** The code without its comments, so that a comment naming the window is no DOM use. */
function code(path: string): string {
  return TEXTS[path].replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
}

const files = Object.keys(TEXTS).filter((path) => path.endsWith(".ts"));

describe("the layers of src/", () => {
  it("has only the four folders and the entry at its top", () => {
    const top = [...new Set(Object.keys(TEXTS).map(layerOf))].sort();
    expect(top).toEqual(["app.ts", "generated", "main.ts", "network", "state", "views"]);
  });

  for (const [layer, allowed] of Object.entries(MAY_IMPORT)) {
    it(`${layer}/ imports only ${[layer, ...allowed].join(", ")}`, () => {
      const wrong = files
        .filter((f) => layerOf(f) === layer)
        .flatMap((f) => importsOf(f).filter((t) => ![layer, ...allowed].includes(layerOf(t))).map((t) => `${f} -> ${t}`));
      expect(wrong).toEqual([]);
    });
  }

  it("keeps the DOM out of generated/, network/ and state/", () => {
    const dom = /\b(document|HTMLElement|SVG[A-Za-z]*Element|localStorage)\b|\bwindow\./;
    const wrong = files.filter((f) => ["generated", "network", "state"].includes(layerOf(f)) && dom.test(code(f)));
    expect(wrong).toEqual([]);
  });
});
