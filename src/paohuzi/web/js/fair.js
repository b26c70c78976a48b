// 可验证发牌 (issue 32): the deck of a verifiable deal (rng_version 2) recomputed in the browser with Web Crypto,
// the same derivation as paohuzi/engine/fair.py (docs/engine.md §8 "The verifiable shuffle"; fair.html):
//   key = server seed (32 bytes); prefix = "paohuzi-deal-v2" ‖ seats (1 byte) ‖ per seat: length (1 byte) ‖ seed;
//   block c = HMAC-SHA-256(key, prefix ‖ c as 4 bytes big-endian); the blocks are 32-bit big-endian words;
//   uniform(n) = the first word below 2^32 − 2^32 mod n, mod n; the dealer = uniform(seats), then Fisher–Yates
//   over the deck in kind order (x1…x10, d1…d10, four of each): i from the last down to 1, j = uniform(i + 1).
// Nothing here touches the DOM: settle.js and replay.js show the verdict.

const KINDS = [..."x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10".split(" ")];
/** The full deck in kind order (paohuzi.cards.full_deck). */
export const FULL_DECK = KINDS.flatMap((k) => [k, k, k, k]);
const DOMAIN = new TextEncoder().encode("paohuzi-deal-v2");
const SPAN = 2 ** 32;

export function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) throw new Error(`not hex: ${hex}`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A fresh client seed: 16 random bytes as hex (crypto.getRandomValues). */
export function randomSeed() {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

/** SHA-256 of the server seed (hex in, hex out): the commitment. */
export async function commitmentOf(serverSeedHex) {
  return toHex(await crypto.subtle.digest("SHA-256", fromHex(serverSeedHex)));
}

function prefixOf(clientSeeds) {
  const seeds = clientSeeds.map(fromHex);
  const out = new Uint8Array(DOMAIN.length + 1 + seeds.reduce((n, s) => n + 1 + s.length, 0));
  out.set(DOMAIN, 0);
  let pos = DOMAIN.length;
  out[pos++] = seeds.length;
  for (const s of seeds) {
    out[pos++] = s.length;
    out.set(s, pos);
    pos += s.length;
  }
  return out;
}

/** {dealer, deck}: the dealer drawn and the deck in deal order, from the hex seeds (async: Web Crypto). */
export async function deriveDeal(serverSeedHex, clientSeeds, cards = FULL_DECK) {
  const key = await crypto.subtle.importKey("raw", fromHex(serverSeedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = prefixOf(clientSeeds);
  const message = new Uint8Array(prefix.length + 4);
  message.set(prefix, 0);
  let counter = 0;
  let words = [];
  let pos = 0;
  async function next() {
    if (pos === words.length) {
      new DataView(message.buffer).setUint32(prefix.length, counter++, false);
      const block = new DataView(await crypto.subtle.sign("HMAC", key, message));
      words = [];
      for (let i = 0; i < 32; i += 4) words.push(block.getUint32(i, false));
      pos = 0;
    }
    return words[pos++];
  }
  async function uniform(n) {
    const limit = SPAN - (SPAN % n);
    let w = await next();
    while (w >= limit) w = await next();
    return w % n;
  }
  const dealer = await uniform(clientSeeds.length);
  const deck = [...cards];
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await uniform(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return { dealer, deck };
}

/** The recorded deal (`dealt`: hands per seat, [] for a seat sitting out, and the stock) as one deck in deal
 * order: the seats in turn order from the dealer (R2), then the stock. */
export function deckOfDealt(dealt, dealer) {
  const n = dealt.hands.length;
  const seats = [...Array(n).keys()].map((i) => (dealer + i) % n).filter((s) => dealt.hands[s].length);
  return [...seats.flatMap((s) => dealt.hands[s]), ...dealt.stock];
}

/**
 * Check a revealed deal: `deal` = {rng_version, commitment, server_seed, client_seeds, dealer, dealt}
 * (hand_over.deal, or a record: its `fair` with its `dealer`/`dealt`). `seen`: the commitment this client was
 * sent before the deal, `mine`: {seat, seed} — the client seed this client sent. →
 * {status: "ok" | "bad" | "legacy", problems: [{key, ...}]} (keys are i18n keys: settle.js / replay.js).
 */
export async function verifyDeal(deal, { seen = null, mine = null } = {}) {
  if (!deal || deal.rng_version !== 2 || !deal.server_seed) return { status: "legacy", rngVersion: (deal && deal.rng_version) || 1, problems: [] };
  const problems = [];
  try {
    if ((await commitmentOf(deal.server_seed)) !== deal.commitment) problems.push({ key: "fair_server_seed" });
    if (seen && seen !== deal.commitment) problems.push({ key: "fair_commitment" });
    if (mine && mine.seed && deal.client_seeds[mine.seat] !== mine.seed) problems.push({ key: "fair_my_seed" });
    const { deck } = await deriveDeal(deal.server_seed, deal.client_seeds);
    const recorded = deckOfDealt(deal.dealt, deal.dealer);
    const differ = deck.reduce((n, c, i) => n + (c !== recorded[i] ? 1 : 0), 0);
    if (differ) problems.push({ key: differ === 2 ? "fair_swapped" : "fair_deck", n: differ });
  } catch (err) {
    problems.push({ key: "fair_unreadable", message: String(err) });
  }
  return { status: problems.length ? "bad" : "ok", problems };
}

/** A record's deal for verifyDeal (a record keeps the seeds in `fair`). */
export function dealOfRecord(record) {
  if (!record || !record.fair) return { rng_version: (record && record.rng_version) || 1 };
  return { rng_version: record.rng_version, ...record.fair, dealer: record.dealer, dealt: record.dealt };
}
