// Small DOM helpers: element creation and modal dialogs.

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === "class") node.className = String(v);
    else if (v === true) node.setAttribute(k, "");
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return node;
}

/** A modal dialog; resolves with the value of the button pressed, or null when dismissed. */
export function modal<T>(opts: {
  title: string;
  body?: (Node | string)[];
  buttons: { label: string; value: T; primary?: boolean; danger?: boolean }[];
  className?: string;
  dismissValue?: T | null;
}): Promise<T | null> {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2, 8)}`;
    const dlg = h("dialog", { class: `dialog ${opts.className ?? ""}`, "aria-labelledby": titleId });
    const done = (v: T | null) => {
      dlg.close();
      dlg.remove();
      resolve(v);
    };
    dlg.append(
      h("h2", { id: titleId }, opts.title),
      ...(opts.body ?? []).map((b) => (typeof b === "string" ? h("p", {}, b) : b)),
      h(
        "div",
        { class: "dialog-buttons" },
        opts.buttons.map((b) =>
          h("button", { class: `btn ${b.primary ? "primary" : ""} ${b.danger ? "danger" : ""}`, type: "button", onclick: () => done(b.value) }, b.label),
        ),
      ),
    );
    dlg.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      done(opts.dismissValue ?? null);
    });
    document.body.appendChild(dlg);
    dlg.showModal();
    const primary = dlg.querySelector<HTMLButtonElement>("button.primary") ?? dlg.querySelector("button");
    primary?.focus();
  });
}

/** A list of choices, each with a line of description; resolves with the chosen id. */
export function choose(opts: {
  title: string;
  options: { id: string; name: string; line?: string }[];
  current: string;
}): Promise<string | null> {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2, 8)}`;
    const dlg = h("dialog", { class: "dialog chooser", "aria-labelledby": titleId });
    const done = (v: string | null) => {
      dlg.close();
      dlg.remove();
      resolve(v);
    };
    const list = h(
      "div",
      { class: "choice-list", role: "radiogroup", "aria-labelledby": titleId },
      opts.options.map((o) =>
        h(
          "button",
          {
            type: "button",
            class: `choice ${o.id === opts.current ? "selected" : ""}`,
            role: "radio",
            "aria-checked": o.id === opts.current ? "true" : "false",
            "data-id": o.id,
            onclick: () => done(o.id),
          },
          h("span", { class: "choice-name" }, o.name),
          o.line ? h("span", { class: "choice-line" }, o.line) : null,
        ),
      ),
    );
    dlg.append(
      h("h2", { id: titleId }, opts.title),
      list,
      h("div", { class: "dialog-buttons" }, h("button", { class: "btn", type: "button", onclick: () => done(null) }, "Cancel")),
    );
    dlg.addEventListener("cancel", (ev) => {
      ev.preventDefault();
      done(null);
    });
    document.body.appendChild(dlg);
    dlg.showModal();
    (list.querySelector<HTMLButtonElement>(".choice.selected") ?? list.querySelector<HTMLButtonElement>(".choice"))?.focus();
  });
}

let toastTimer: ReturnType<typeof setTimeout> | null = null;

export function toast(message: string): void {
  let t = document.getElementById("toast");
  if (!t) {
    t = h("div", { id: "toast", role: "status", "aria-live": "polite" });
    document.body.appendChild(t);
  }
  t.textContent = message;
  t.classList.add("show");
  if (toastTimer) clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t!.classList.remove("show"), 3500);
}

export function vibrate(enabled: boolean, pattern: number | number[]): void {
  if (!enabled) return;
  const nav = navigator as Navigator & { vibrate?: (p: number | number[]) => boolean };
  if (typeof nav.vibrate === "function") {
    try {
      nav.vibrate(pattern);
    } catch {
      /* not allowed here */
    }
  }
}
