/**
 * The /verify page: recomputes every die this viewer was shown, in the
 * browser, from the history alone (docs/dice.md), with proof.js's own
 * SHA-256 and HMAC — nothing of the server's code. Opened from a page's
 * "Verify dice" button (`/verify#token=…`), it reads the history the token
 * may read, page by page; it also checks a table export or a downloaded
 * history chosen as a file, and downloads the history it read.
 *
 * `document.body.dataset.verify` is "done" once the findings are drawn,
 * with `dataset.verified`, `dataset.unverifiable` and `dataset.failed`
 * counting them (tests read them).
 */

import { VigilClient } from "/client/core/client.js";
import { errorSentence, eventSentence, h, loadCatalogue, swap, t, takeToken, wsUrl } from "./common.js";
import { FAILURES, UNVERIFIABLE, readDocument, verify } from "./proof.js";

const TOKEN_KEY = "vigil.verify.token";
const PAGE = 200;
const $ = (id) => document.getElementById(id);

/** Every entry of the history this client may read, oldest first. */
async function wholeHistory(client) {
  const entries = [];
  let before = null;
  for (;;) {
    const page = await client.history({ before, limit: PAGE });
    entries.push(...page.entries);
    if (page.next_before === null || page.next_before === undefined) break;
    before = page.next_before;
  }
  return entries.sort((a, b) => a.rev - b.rev);
}

/** A finding in words: which roll (by its first event's sentence, names not ids) and what became of it. */
function sentence(finding, names) {
  const first = finding.entry?.events?.[0];
  const about = first ? eventSentence(first, names) : "";
  const roll = t("VIGIL.Verify.roll", { rev: finding.rev, about });
  return t(`VIGIL.Verify.${finding.status}`, { ...finding.params, roll });
}

function show(source) {
  const findings = verify(source);
  const count = (set) => findings.filter((f) => set.has(f.status)).length;
  const verified = findings.filter((f) => f.status === "verified").length;
  const unverifiable = count(UNVERIFIABLE);
  const failed = count(FAILURES);
  swap(
    $("verify-findings"),
    findings.map((f) => h("li", { class: `finding ${f.status}`, dataset: { status: f.status, rev: String(f.rev) } }, sentence(f, source.names ?? {}))),
  );
  const verdict = failed ? t("VIGIL.Verify.failed") : findings.length ? t("VIGIL.Verify.ok") : t("VIGIL.Verify.none");
  $("verify-summary").textContent = `${verdict} ${t("VIGIL.Verify.summary", { verified, unverifiable, failed })}`;
  Object.assign(document.body.dataset, {
    verify: "done",
    verified: String(verified),
    unverifiable: String(unverifiable),
    failed: String(failed),
  });
}

function offerDownload(source) {
  const button = $("verify-download");
  button.hidden = false;
  button.textContent = t("VIGIL.Verify.download");
  button.onclick = () => {
    const doc = { format: "vigil-history", table: source.table, epoch: source.epoch, entries: source.entries, names: source.names };
    const url = URL.createObjectURL(new Blob([JSON.stringify(doc)], { type: "application/json" }));
    const a = h("a", { href: url, download: `${source.table}-history.json` });
    a.click();
    URL.revokeObjectURL(url);
  };
}

async function fromServer(token) {
  $("verify-summary").textContent = t("VIGIL.Verify.loading");
  const client = new VigilClient({ url: wsUrl(), token, clientName: "vigil-verify" });
  window.vigil = client;
  client.addEventListener("refused", (ev) => {
    $("verify-summary").textContent = errorSentence(ev.detail);
  });
  const ready = new Promise((resolve) => client.addEventListener("state", resolve, { once: true }));
  client.connect();
  await ready;
  const state = client.state;
  $("table-title").textContent = state.name;
  if (state.dice) $("verify-commitment").textContent = t("VIGIL.Dice.fingerprintTitle", state.dice);
  const names = Object.fromEntries(Object.entries(state.characters).map(([id, ch]) => [id, ch.name]));
  const source = { table: client.tableId, epoch: client.epoch, entries: await wholeHistory(client), names };
  client.close();
  show(source);
  offerDownload(source);
}

async function main() {
  await loadCatalogue();
  document.title = `${t("VIGIL.Verify.title")} — Vigil`;
  $("verify-title").textContent = t("VIGIL.Verify.title");
  $("verify-intro").textContent = t("VIGIL.Verify.intro");
  $("verify-file-label").textContent = t("VIGIL.Verify.file");
  $("verify-file").addEventListener("change", async (ev) => {
    const file = ev.target.files?.[0];
    if (!file) return;
    try {
      show(readDocument(JSON.parse(await file.text())));
    } catch (err) {
      const why = err.code ? t(`VIGIL.Verify.${err.code}`) : err.message;
      $("verify-summary").textContent = `${t("VIGIL.Verify.failed")} ${why}`;
      document.body.dataset.verify = "bad-file";
    }
  });
  const { token } = takeToken(TOKEN_KEY);
  if (token) await fromServer(token);
}

main();
