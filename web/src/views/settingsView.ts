// The Settings screen: appearance, gameplay and controls position, applied at once.

import type { App, Screen } from "../app";
import { h } from "./dom";
import { PALETTES, PLAYER_COLOURS, pickPlayerColour, type Settings } from "../state/settings";

function radioGroup<T extends string>(opts: {
  label: string;
  name: string;
  value: T;
  options: { id: T; name: string; line?: string; swatch?: string }[];
  onChange(v: T): void;
}): HTMLElement {
  const id = `grp-${opts.name}`;
  return h(
    "fieldset",
    { class: "setting" },
    h("legend", { id }, opts.label),
    h(
      "div",
      { class: "radio-list" },
      opts.options.map((o) =>
        h(
          "label",
          { class: `radio ${o.id === opts.value ? "checked" : ""}` },
          h("input", {
            type: "radio",
            name: opts.name,
            value: o.id,
            checked: o.id === opts.value,
            onchange: () => opts.onChange(o.id),
          }),
          o.swatch ? h("span", { class: "swatch", style: `background:${o.swatch}`, "aria-hidden": "true" }) : null,
          h("span", { class: "radio-text" }, h("span", {}, o.name), o.line ? h("span", { class: "radio-line" }, o.line) : null),
        ),
      ),
    ),
  );
}

export function mountSettings(app: App, root: HTMLElement): Screen {
  const screen = h("div", { class: "screen settings-screen" });
  root.append(screen);

  const set = (next: Settings, focusName?: string) => {
    app.updateSettings(next);
    render(focusName);
  };

  const render = (focusName?: string) => {
    const s = app.settings;
    const dark = document.documentElement.dataset.theme === "dark";
    screen.replaceChildren(
      h("header", { class: "topbar" }, h("button", { type: "button", class: "icon-btn", "aria-label": "Back to menu", onclick: () => app.show("menu") }, "←"), h("h1", { class: "game-title" }, "Settings")),
      h(
        "div",
        { class: "settings-body" },
        h("h2", {}, "Appearance"),
        radioGroup({
          label: "Theme",
          name: "theme",
          value: s.theme,
          options: [
            { id: "system", name: "System default", line: "Light or dark, as your device is set" },
            { id: "light", name: "Light" },
            { id: "dark", name: "Dark" },
          ],
          onChange: (v) => set({ ...s, theme: v }, "theme"),
        }),
        radioGroup({
          label: "Colours",
          name: "palette",
          value: s.palette,
          options: PALETTES.map((p) => ({
            id: p.id,
            name: p.name,
            swatch: `hsl(${p.id === "custom" ? s.customHue : p.hue} ${p.sat}% ${dark ? 65 : 45}%)`,
            line: p.id === "indigo" ? "The Boxed In colours" : p.id === "custom" ? "Pick a hue of your own" : undefined,
          })),
          onChange: (v) => set({ ...s, palette: v }, "palette"),
        }),
        s.palette === "custom"
          ? h(
              "div",
              { class: "setting hue" },
              h("label", { for: "hue" }, `Hue: ${s.customHue}°`),
              h("input", {
                id: "hue",
                type: "range",
                min: "0",
                max: "359",
                value: String(s.customHue),
                "aria-label": "Custom colour hue",
                oninput: (ev: Event) => {
                  const v = Number((ev.target as HTMLInputElement).value);
                  app.updateSettings({ ...app.settings, customHue: v });
                  const label = screen.querySelector('label[for="hue"]');
                  if (label) label.textContent = `Hue: ${v}°`;
                },
              }),
            )
          : null,
        ([1, 2] as const).map((p) =>
          radioGroup({
            label: p === 1 ? "You / Player 1 (diamond)" : "AI / Player 2 (ring)",
            name: `colour${p}`,
            value: p === 1 ? s.p1Colour : s.p2Colour,
            options: PLAYER_COLOURS.map((c) => ({ id: c.id, name: c.name, swatch: dark ? c.dark : c.light })),
            onChange: (v) => set(pickPlayerColour(app.settings, p, v), `colour${p}`),
          }),
        ),
        h("p", { class: "muted" }, "The two players always have different colours: choosing the other player's colour swaps them."),
        h("h2", {}, "Gameplay"),
        radioGroup({
          label: "Who moves first",
          name: "first",
          value: s.first,
          options: [
            { id: "1", name: "You / Player 1" },
            { id: "2", name: "AI / Player 2" },
            { id: "random", name: "Random", line: "Drawn anew for every game" },
          ],
          onChange: (v) => set({ ...s, first: v }, "first"),
        }),
        radioGroup({
          label: "AI speed",
          name: "aispeed",
          value: s.aiSpeed,
          options: [
            { id: "normal", name: "Normal", line: "Each AI move is shown in turn" },
            { id: "fast", name: "Fast", line: "Just brief pauses between AI moves" },
          ],
          onChange: (v) => set({ ...s, aiSpeed: v }, "aispeed"),
        }),
        h(
          "fieldset",
          { class: "setting" },
          h("legend", {}, "Vibration"),
          h(
            "label",
            { class: "switch" },
            h("input", { type: "checkbox", name: "vibration", checked: s.vibration, onchange: (ev: Event) => set({ ...s, vibration: (ev.target as HTMLInputElement).checked }, "vibration") }),
            h("span", {}, "Buzz for every edge you draw, stronger when it captures"),
          ),
          "vibrate" in navigator ? null : h("p", { class: "muted" }, "This browser cannot vibrate."),
        ),
        h(
          "fieldset",
          { class: "setting" },
          h("legend", {}, "Tap to select"),
          h(
            "label",
            { class: "switch" },
            h("input", { type: "checkbox", name: "tapselect", checked: s.tapSelect, onchange: (ev: Event) => set({ ...s, tapSelect: (ev.target as HTMLInputElement).checked }, "tapselect") }),
            h("span", {}, "Where the dots are close together, a tap selects the nearest edge and a second tap (or Draw) draws it"),
          ),
        ),
        h("h2", {}, "Controls position"),
        radioGroup({
          label: "Main controls",
          name: "controls",
          value: s.controls,
          options: [
            { id: "left", name: "Left side" },
            { id: "right", name: "Right side" },
          ],
          onChange: (v) => set({ ...s, controls: v }, "controls"),
        }),
      ),
    );
    if (focusName) (screen.querySelector(`input[name="${focusName}"]:checked`) as HTMLElement | null)?.focus();
  };
  render();
  return { unmount() {} };
}
