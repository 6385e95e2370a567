// Colour arithmetic for legibility: CSS colours to sRGB, relative luminance and the WCAG
// contrast ratio, and the colour the previous turn's pulse takes on a given board.

export type Rgb = [number, number, number]; // 0..255

export function hslToRgb(h: number, s: number, l: number): Rgb {
  const sat = s / 100;
  const light = l / 100;
  const a = sat * Math.min(light, 1 - light);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/** `#rrggbb` or `hsl(h s% l%)`, the two forms the settings write. */
export function parseColour(css: string): Rgb {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(css.trim());
  if (hex) return [parseInt(hex[1], 16), parseInt(hex[2], 16), parseInt(hex[3], 16)];
  const hsl = /^hsl\(\s*([\d.]+)\s+([\d.]+)%\s+([\d.]+)%\s*\)$/.exec(css.trim());
  if (hsl) return hslToRgb(Number(hsl[1]), Number(hsl[2]), Number(hsl[3]));
  throw new Error(`not a colour this client writes: ${css}`);
}

export function toHex([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`;
}

export function luminance([r, g, b]: Rgb): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** The non-text contrast WCAG asks of graphics (1.4.11). */
export const NON_TEXT_CONTRAST = 3;

/** The rule book's pulse hue: "Edges pulsing in orange". */
export const ORANGE_HUE = 30;
/** How near in hue a player's colour may come before orange no longer reads as unlike it. */
const NEAR_HUE = 20;
// Saturated hues for a pulse that cannot be orange, warm ones first.
const PULSE_HUES = [45, 15, 0, 330, 300, 270, 190, 160, 120, 60, 210, 240];

export function hueOf([r, g, b]: Rgb): { hue: number; saturation: number } {
  const max = Math.max(r, g, b) / 255;
  const min = Math.min(r, g, b) / 255;
  const d = max - min;
  if (d === 0) return { hue: 0, saturation: 0 };
  const l = (max + min) / 2;
  const saturation = d / (1 - Math.abs(2 * l - 1));
  const [rr, gg, bb] = [r / 255, g / 255, b / 255];
  const h = max === rr ? ((gg - bb) / d) % 6 : max === gg ? (bb - rr) / d + 2 : (rr - gg) / d + 4;
  return { hue: (h * 60 + 360) % 360, saturation };
}

/** Whether a player's colour is itself orange-like (Gold), so that an orange pulse beside it would
 * read as that player's edge. Greys have no hue to clash with. */
export function nearOrange(colour: Rgb): boolean {
  const { hue, saturation } = hueOf(colour);
  const apart = Math.min(Math.abs(hue - ORANGE_HUE), 360 - Math.abs(hue - ORANGE_HUE));
  return saturation > 0.25 && apart < NEAR_HUE;
}

/**
 * The pulse's colour on a board of colour `board` with the players' colours `p1` and `p2`.
 *
 * It must stand out from the board (3:1) and look unlike both players' edges. No single colour
 * reaches 3:1 against the board and both players' colours for every pair (a dark board next to
 * light player colours leaves no room), so the pulse is drawn as a band kept apart from the edge
 * by a strip of the board's colour. It is orange, as the rule book says, at the shade reaching
 * 3:1 against the board with the largest contrast to the nearer player's colour: the hue sets it
 * apart from players' colours that are not orange themselves. Beside an orange-like player's
 * colour (Gold) it is the saturated colour that reaches 3:1 against the board with the largest
 * contrast to the nearer player's colour (the help says so).
 */
export function pulseColour(board: Rgb, p1: Rgb, p2: Rgb): Rgb {
  const hues = nearOrange(p1) || nearOrange(p2) ? PULSE_HUES : [ORANGE_HUE];
  const candidates: { hue: number; rgb: Rgb; score: number }[] = [];
  for (const hue of hues) {
    for (let l = 20; l <= 85; l += 5) {
      const rgb = hslToRgb(hue, 95, l);
      if (contrast(rgb, board) < NON_TEXT_CONTRAST) continue;
      // A near-black or near-white shade no longer reads as its hue.
      if (hue === ORANGE_HUE && (l < 35 || l > 70)) continue;
      candidates.push({ hue, rgb, score: Math.min(contrast(rgb, p1), contrast(rgb, p2)) });
    }
  }
  // Every board this client draws (light or dark surface) has such a colour; black or white
  // stand in for any other.
  if (!candidates.length) return luminance(board) > 0.18 ? [0, 0, 0] : [255, 255, 255];
  // The first hue that comes within a little of the best contrast there is (or of 3:1), at its
  // own best shade: a warm colour reads as "new" better than a slightly darker blue.
  const reachable = Math.min(NON_TEXT_CONTRAST, Math.max(...candidates.map((c) => c.score)));
  const hue = candidates.find((c) => c.score >= reachable - 0.2)!.hue;
  return candidates.filter((c) => c.hue === hue).reduce((a, b) => (b.score > a.score ? b : a)).rgb;
}
