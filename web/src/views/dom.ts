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

/**
 * A three-dot button with its menu of items (role=menu): opens on click, arrow keys move between
 * the items, Escape or a click elsewhere closes it and focus returns to the button.
 */
export function popupMenu(opts: {
  label?: string;
  items: { label: string; onSelect(): void; danger?: boolean }[];
  focusId?: string;
}): HTMLElement {
  const button = h(
    "button",
    {
      class: "icon-btn more-btn",
      type: "button",
      "aria-label": opts.label ?? "More options",
      "aria-haspopup": "menu",
      "aria-expanded": "false",
      "data-focus-id": opts.focusId ?? null,
    },
    "⋮",
  );
  const items = opts.items.map((it) =>
    h(
      "button",
      {
        type: "button",
        role: "menuitem",
        class: it.danger ? "danger-item" : null,
        onclick: () => {
          close(false);
          it.onSelect();
        },
      },
      it.label,
    ),
  );
  const menu = h("div", { class: "popup-menu", role: "menu", hidden: true }, items);
  const wrap = h("div", { class: "popup-wrap" }, button, menu);
  const onDoc = (ev: MouseEvent) => {
    if (!wrap.contains(ev.target as Node)) close(false);
  };
  function open(): void {
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    items[0]?.focus();
    document.addEventListener("click", onDoc, true);
  }
  function close(refocus: boolean): void {
    if (menu.hidden) return;
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
    document.removeEventListener("click", onDoc, true);
    if (refocus) button.focus();
  }
  button.addEventListener("click", () => (menu.hidden ? open() : close(false)));
  menu.addEventListener("keydown", (ev) => {
    const i = items.indexOf(document.activeElement as HTMLButtonElement);
    const move = (to: number) => {
      ev.preventDefault();
      items[(to + items.length) % items.length]?.focus();
    };
    if (ev.key === "Escape") {
      ev.preventDefault();
      close(true);
    } else if (ev.key === "ArrowDown") move(i + 1);
    else if (ev.key === "ArrowUp") move(i - 1);
    else if (ev.key === "Home") move(0);
    else if (ev.key === "End") move(items.length - 1);
    else if (ev.key === "Tab") close(false);
  });
  return wrap;
}

/**
 * Tabs (role=tablist/tab/tabpanel): the arrow keys, Home and End move between them. `render`
 * fills the panel for the tab chosen; `onChange` hears which.
 */
export function tabs(opts: {
  label: string;
  tabs: { id: string; label: string }[];
  current: string;
  idPrefix: string;
  render(id: string, panel: HTMLElement): void;
  onChange?(id: string): void;
}): HTMLElement {
  let current = opts.tabs.some((t) => t.id === opts.current) ? opts.current : opts.tabs[0]?.id;
  const panel = h("div", { class: "tab-panel", role: "tabpanel", id: `${opts.idPrefix}-panel`, tabindex: "0" });
  const buttons = opts.tabs.map((t) =>
    h(
      "button",
      {
        type: "button",
        role: "tab",
        id: `${opts.idPrefix}-tab-${t.id}`,
        "aria-controls": panel.id,
        "data-tab": t.id,
        onclick: () => select(t.id, false),
      },
      t.label,
    ),
  );
  const list = h("div", { class: "tab-list", role: "tablist", "aria-label": opts.label }, buttons);
  function select(id: string, focus: boolean): void {
    current = id;
    buttons.forEach((b, i) => {
      const on = opts.tabs[i].id === id;
      b.setAttribute("aria-selected", String(on));
      b.tabIndex = on ? 0 : -1;
      b.classList.toggle("selected", on);
      if (on) {
        panel.setAttribute("aria-labelledby", b.id);
        if (focus) b.focus();
      }
    });
    panel.replaceChildren();
    opts.render(id, panel);
    opts.onChange?.(id);
  }
  list.addEventListener("keydown", (ev) => {
    const i = opts.tabs.findIndex((t) => t.id === current);
    const n = opts.tabs.length;
    let to = -1;
    if (ev.key === "ArrowRight") to = (i + 1) % n;
    else if (ev.key === "ArrowLeft") to = (i - 1 + n) % n;
    else if (ev.key === "Home") to = 0;
    else if (ev.key === "End") to = n - 1;
    if (to < 0) return;
    ev.preventDefault();
    select(opts.tabs[to].id, true);
  });
  const wrap = h("div", { class: "tabs" }, list, panel);
  if (current !== undefined) select(current, false);
  return wrap;
}
