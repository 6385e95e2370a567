// The longer texts of Help & Rules: how each overlap rule plays and what to aim for, and the
// Strategy section. Written for this client; the rule book's figures are the engine's.

/** Per overlap rule: what happens, and a hint for playing it. */
export const OVERLAP_DETAILS: Record<string, { what: string; tip: string }> = {
  independent: {
    what: "Squares never affect each other. Every square of every size is captured sooner or later and keeps its points, so a game's total is fixed before it starts.",
    tip: "The big squares hold most of the points. Work towards their outlines and take the single boxes as they come.",
  },
  consume: {
    what: "Closing a larger square removes every smaller captured square inside it, whoever holds it, and its points go with it. A smaller square inside a captured larger one can no longer be taken.",
    tip: "Only the largest squares last. Close big outlines over the other player's boxes rather than over your own.",
  },
  exclusive: {
    what: "A square scores only if none of its boxes is already covered. Each box ends up counted once, so the total equals the number of boxes. Edges that can only finish blocked squares are drawn dashed and score nothing; the game ends when only those are left.",
    tip: "One box dropped into the outline the other player is building spoils it. When you must give an edge away, a dashed one costs nothing.",
  },
  takeover: {
    what: "Closing a larger square brings the other player's smaller squares inside it over to you, points included. Your own stay yours; squares captured inside it later are not affected.",
    tip: "A small square is only as safe as the large ones around it. A 2×2 over one of their boxes swings the score by six.",
  },
  protected: {
    what: "Once any captured square lies inside a larger one, the larger one can never be captured. Capturing the larger square first is fine: the boxes inside still score afterwards.",
    tip: "Go big first, then collect the boxes inside. One early box kills every large square around it, yours included.",
  },
  layered: {
    what: "Every square scores as usual, plus a bonus point for each box it shares with each of your own squares already there. Overlapping the other player earns nothing.",
    tip: "Stack your squares in one area: each new layer pays more than the last.",
  },
  volatile: {
    what: "Closing a larger square erases the other player's smaller squares inside it, and they lose those points. Your own smaller squares inside stay, and nothing is handed to you.",
    tip: "Your boxes are at risk only from their large squares. The largest squares can never be erased.",
  },
  builder: {
    what: "Nothing is removed. Closing a larger square also pays again the points of your own smaller squares inside it, so building from small to large is rewarded.",
    tip: "Boxes first, then the 2×2 over them, then the 3×3: the same squares in the other order earn no bonus.",
  },
  territory: {
    what: "You score boxes, not squares. Each box belongs to whoever last captured a square over it; the board shows only that holder. A square over your own boxes adds nothing.",
    tip: "Early boxes are on loan until every square over them is finished. Aim to close the last square over an area.",
  },
  majority: {
    what: "Single boxes go to whoever closes them. A larger square goes to whoever holds more of the boxes inside it at the moment it is closed, whoever draws the last edge; on a tie the closer gets it.",
    tip: "Count the boxes inside before you close a large square: with more of theirs, your edge is a present to them.",
  },
  fortress: {
    what: "A larger square can be captured only by the player who holds every captured square inside it. Closed by anybody else, it is lost for good; with squares of both players inside, nobody can have it.",
    tip: "One of your boxes inside a large square reserves it for you; one of each kills it.",
  },
  home_turf: {
    what: "A square inside a larger square only you hold scores double; inside one only the other player holds it scores nothing. Elsewhere, or where both hold a square around it, it scores as usual.",
    tip: "Claim a large square early, then fill it in at double value.",
  },
  capped_layered: {
    what: "Like Layered, but a box adds at most one bonus point however many of your squares cover it, so a square can at most double its value.",
    tip: "Stacking still pays, but a third layer over the same boxes pays no more than a second.",
  },
};

/** The Strategy section: headings and paragraphs. */
export const STRATEGY: { title: string; text: string[] }[] = [
  {
    title: "Every game: the third side",
    text: [
      "A box with three sides drawn is a free point for whoever moves next. In Standard, avoid drawing a box's third side for as long as there is another line to draw. With dice, draw a third side only when you can close the box in the same turn.",
      "When you must give something away, give little: an edge on the rim touches one box, an edge inside touches two and lies on more large squares.",
    ],
  },
  {
    title: "Chains and loops (Standard)",
    text: [
      "Once the safe lines are used up, the board falls apart into chains: rows of boxes where taking one opens the next. A chain that closes on itself, with no end, is a loop. Whoever has to open a chain hands it over, so the fight is over who runs out of safe lines first.",
      "Give away the shortest chain first. A chain of one or two boxes, or a small loop, costs little; a long chain is where games are won.",
    ],
  },
  {
    title: "The double-cross",
    text: [
      "When the other player opens a long chain, you need not take every box. Take all but the last two, then draw the line that closes neither of them, at the far end: you give up two boxes, and the other player, after taking them, must open the next chain for you. In a loop the same trick costs four boxes.",
      "This keeps control: you collect most of every chain while the other player keeps opening them. Give it up only when the boxes left are too few to make the sacrifice worth it.",
    ],
  },
  {
    title: "Control",
    text: [
      "The player in control is the one who will receive the first long chain. Count ahead: the number of safe lines left decides who has to open the first chain, so a well-timed sacrifice early (a box or two given away on purpose) can shift that count in your favour.",
    ],
  },
  {
    title: "Dice games",
    text: [
      "A roll is an upper limit, not a duty: draw one edge and end the turn when more would set up boxes for the other player. Before a big roll, look for a box or a square you can build and close in one turn. Chain Reaction's free capturing edges make long rows worth building: an open row is worth more to whoever rolls next.",
    ],
  },
  {
    title: "Larger squares",
    text: [
      "A 2×2 needs eight edges and a 3×3 twelve, more than most rolls, so large squares are usually finished by whoever draws the last few edges of an outline somebody else started. Watch outlines that are nearly complete, yours and theirs, and read the overlap rule: it decides whether the boxes inside help or spoil the square around them.",
    ],
  },
];
