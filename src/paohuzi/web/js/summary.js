// 总结算: the summary of a whole match — every hand (winner, 胡息, 名堂 with 番, points, each seat's change;
// 荒庄 and 逃跑 marked), the totals, 大赢家 and the best hand, each hand's replay a tap away — and a PNG of
// it drawn in the browser (canvas) to send to a chat group. Data: GET /api/matches/{id} (docs/protocol.md).

import { api } from "./api.js";
import { h } from "./dom.js";
import { lang, mingtangText, t } from "./i18n.js";
import { nameEl, seatName } from "./table.js";

/** The match summary from the server, or null. */
export async function loadSummary(matchId) {
  try {
    const data = await api("GET", `/api/matches/${matchId}`);
    return data.match;
  } catch {
    return null;
  }
}

function namesOf(summary) {
  return summary.seats.map((s) => ({ nickname: s.nickname, bot: s.bot || false })); // the level key: "电脑2·高手", as at the table
}

/** What the summary shows, worked out once for the page and the PNG. */
export function summaryFacts(summary) {
  const names = namesOf(summary);
  const seats = summary.seats.map((s) => s.seat);
  const totals = summary.seats.map((s) => s.score);
  const top = Math.max(...totals);
  const bigWinners = seats.filter((s) => totals[s] === top && top > 0);
  const wins = summary.hands.filter((hd) => hd.kind === "hu");
  const bestPoints = wins.length ? Math.max(...wins.map((hd) => hd.points || 0)) : null;
  const best = wins.find((hd) => hd.points === bestPoints) || null;
  const rows = summary.hands.map((hd) => {
    let result;
    if (hd.kind === "hu") result = { kind: "hu", seat: hd.winner };
    else if (hd.kind === "escape") result = { kind: "escape", seat: hd.leaver };
    else if (hd.kind === "draw") result = { kind: "draw" };
    else result = { kind: hd.status === "playing" ? "playing" : "void" };
    return {
      id: hd.id,
      number: hd.number,
      result,
      huxi: hd.kind === "hu" ? hd.huxi : null,
      zimo: hd.kind === "hu" && !!hd.zimo, // 自摸 (R6.3)
      names: hd.kind === "hu" ? (hd.names || []).filter((n) => n.fan > 0) : [],
      points: hd.kind === "hu" ? hd.points : null,
      payments: hd.payments || seats.map(() => 0),
      best: best !== null && hd.id === best.id,
    };
  });
  return { names, seats, totals, bigWinners, rows };
}

function resultText(row, names) {
  const who = (s) => seatName(null, s, names);
  if (row.result.kind === "hu") return [nameEl(who(row.result.seat), "pname"), ` ${t("won")}`];
  if (row.result.kind === "escape") return [nameEl(who(row.result.seat), "pname"), ` ${t("escapeHand", { name: "" }).trim()}`];
  if (row.result.kind === "draw") return [t("drawn")];
  return [t(row.result.kind === "playing" ? "playing" : "dissolved")];
}

/** A hand's line: who won (自摸 marked) or what happened, its 胡息, 名堂 with 番 and points, and its replay. */
function handLine(row, f, ctx) {
  const win = row.result.kind === "hu";
  return h(
    "div",
    { class: "sum-line" },
    h(
      "span",
      { class: "sum-result" },
      resultText(row, f.names),
      row.zimo ? h("b", { class: "zimo-mark", "data-zimo": "true" }, t("zimo")) : null,
      row.best ? h("b", { class: "best-mark" }, t("bestHand")) : null,
    ),
    win ? h("span", { class: "sum-huxi", "data-huxi": String(row.huxi) }, `${row.huxi} ${t("huxi")}`) : null,
    row.names.length ? h("span", { class: "mt" }, row.names.map((n) => h("span", { class: "mini-chip" }, mingtangText(n.name), h("em", {}, String(n.fan))))) : null,
    win ? h("span", { class: "sum-points", "data-points": String(row.points) }, `${row.points}${t("pts")}`) : null,
    row.result.kind === "playing"
      ? null
      : h("button", { class: "btn small ghost", "data-action": "summary-replay", "data-hand": String(row.id), onclick: () => ctx.onReplay(row.id) }, t("replay")),
  );
}

/** The summary on the page. `ctx`: {me (seat), onReplay(handId), onShare()}.
 *
 * One column per seat (names over their points), narrow enough for a phone with four seats: each hand is a
 * line (result, 胡息, 名堂, points, replay) over its row of each seat's change — no sideways scroll. */
export function renderSummary(summary, ctx) {
  const f = summaryFacts(summary);
  const n = f.seats.length;
  const head = h(
    "tr",
    {},
    h("th", { class: "sum-no" }, t("handCol")),
    f.seats.map((s) => h("th", { class: `sum-seat${s === ctx.me ? " me" : ""}`, "data-seat": String(s) }, nameEl(seatName(null, s, f.names), "pname"))),
  );
  const body = f.rows.map((row) => {
    const cls = `${row.best ? "best" : ""} kind-${row.result.kind}`;
    return [
      h(
        "tr",
        { class: `sum-detail ${cls}`, "data-hand-line": String(row.id) },
        h("td", { class: "sum-no", rowspan: "2" }, String(row.number)),
        h("td", { colspan: String(n) }, handLine(row, f, ctx)),
      ),
      h(
        "tr",
        { class: `sum-deltas ${cls}`, "data-hand": String(row.id) },
        f.seats.map((s) => {
          const d = row.payments[s] || 0;
          return h("td", { class: d > 0 ? "plus" : d < 0 ? "minus" : "", "data-delta": String(d) }, (d > 0 ? "+" : "") + d);
        }),
      ),
    ];
  });
  const totals = h(
    "tr",
    { class: "totals" },
    h("td", { class: "sum-no" }, t("total")),
    f.seats.map((s) => h("td", { class: `${f.bigWinners.includes(s) ? "big-winner" : ""}`, "data-total": String(f.totals[s]) }, String(f.totals[s]))),
  );
  return h(
    "section",
    { class: "summary", "data-testid": "summary" },
    h("h3", {}, t("summaryTitle")),
    f.bigWinners.length
      ? h("p", { class: "big-winners" }, h("b", { class: "crown" }, t("bigWinner")), " ", f.bigWinners.map((s, i) => [i ? (lang() === "zh" ? "、" : ", ") : "", nameEl(seatName(null, s, f.names), "pname")]))
      : null,
    h(
      "table",
      { class: "summary-table", "data-seats": String(n) },
      h("colgroup", {}, h("col", { class: "sum-no" }), f.seats.map(() => h("col", {}))),
      h("thead", {}, head),
      h("tbody", {}, body, totals),
    ),
    h("button", { class: "btn", "data-action": "share", onclick: ctx.onShare }, t("sharePng")),
  );
}

/** The fonts of the PNG: the page's own UI family for all text — digits and the minus sign of a score must
 * come from one font (PHZ Kai, the card font, has the digits but no "+" or "-": a "-9" in it mixes two
 * fonts) — and the card font for the Chinese title only. */
export function pngFonts() {
  const ui = getComputedStyle(document.body).fontFamily || "sans-serif";
  const text = (size, weight = 700) => `${weight} ${size}px ${ui}`;
  const title = (size) => (lang() === "zh" ? `700 ${size}px "PHZ Kai", ${ui}` : text(size));
  return { text, title };
}

/** The summary drawn on a canvas: a PNG (data URL) to send to a chat group. */
export function summaryPng(summary, roomCode) {
  const f = summaryFacts(summary);
  const W = 720;
  const lineH = 34;
  const H = 190 + lineH * (f.rows.length + f.seats.length) + 40;
  const canvas = document.createElement("canvas");
  const scale = 2;
  canvas.width = W * scale;
  canvas.height = H * scale;
  const c = canvas.getContext("2d");
  c.scale(scale, scale);
  const grad = c.createLinearGradient(0, 0, 0, H);
  grad.addColorStop(0, "#2f7f51");
  grad.addColorStop(1, "#123c25");
  c.fillStyle = grad;
  c.fillRect(0, 0, W, H);
  const fonts = pngFonts();
  const name = (s) => seatName(null, s, f.names);
  c.fillStyle = "#fff3cf";
  c.font = fonts.title(34);
  c.fillText(`${t("app")} · ${t("summaryTitle")}`, 28, 52);
  c.font = fonts.text(16, 400);
  c.fillStyle = "#b9cfbf";
  c.fillText(`${roomCode ? `#${roomCode} · ` : ""}${new Date().toLocaleString()}`, 28, 80);
  let y = 124;
  // the totals, best first, with 大赢家
  const order = [...f.seats].sort((a, b) => f.totals[b] - f.totals[a]);
  for (const s of order) {
    c.fillStyle = f.bigWinners.includes(s) ? "#f2c14e" : "#f4f1e6";
    c.font = fonts.text(22);
    c.fillText(`${f.bigWinners.includes(s) ? "★ " : ""}${name(s)}`, 28, y);
    const v = f.totals[s];
    c.fillStyle = v > 0 ? "#7cf09a" : v < 0 ? "#ff9c8a" : "#f4f1e6";
    c.textAlign = "right";
    c.fillText((v > 0 ? "+" : "") + v, W - 28, y);
    c.textAlign = "left";
    y += lineH;
  }
  y += 12;
  c.fillStyle = "rgba(255,255,255,0.2)";
  c.fillRect(28, y - 22, W - 56, 1);
  for (const row of f.rows) {
    c.font = fonts.text(17, row.best ? 700 : 400);
    c.fillStyle = row.best ? "#f2c14e" : "#f4f1e6";
    let text = `${t("handNo", { n: row.number })}  `;
    if (row.result.kind === "hu") {
      // 自摸 marked on the winner's line (R6.3), as on the page
      const sep = lang() === "zh" ? "" : " ";
      text += `${name(row.result.seat)} ${t("won")}${row.zimo ? ` · ${t("zimo")}` : ""} · ${row.huxi}${sep}${t("huxi")} · ${row.points}${t("pts")}`;
      if (row.names.length) text += ` · ${row.names.map((n) => `${mingtangText(n.name)}${n.fan}${t("fan")}`).join(" ")}`;
    } else if (row.result.kind === "escape") {
      text += `${name(row.result.seat)} ${t("escapeHand", { name: "" }).trim()}`;
    } else {
      text += t(row.result.kind === "draw" ? "drawn" : "dissolved");
    }
    c.fillText(text, 28, y, W - 56);
    y += lineH;
  }
  return canvas.toDataURL("image/png");
}

/** Offer the PNG: the system share sheet where there is one (phones), else a download. */
export async function sharePng(dataUrl) {
  try {
    if (navigator.canShare) {
      const blob = await (await fetch(dataUrl)).blob();
      const file = new File([blob], "paohuzi.png", { type: "image/png" });
      if (navigator.canShare({ files: [file] })) {
        await navigator.share({ files: [file], title: t("summaryTitle") });
        return;
      }
    }
  } catch {
    /* fall back to a download */
  }
  const a = h("a", { href: dataUrl, download: "paohuzi.png" });
  document.body.append(a);
  a.click();
  a.remove();
}
