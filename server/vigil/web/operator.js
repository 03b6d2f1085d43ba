/**
 * The operator's face: the server's tables (list, create, archive,
 * export, import, delete) and a GM link for each.
 */

import { h, swap, t, trackEdits } from "./common.js";
import { $, confirmButton, download, run, say, showLink } from "./page.js";

let operatorBuilt = false;

export function buildOperator() {
  if (operatorBuilt) return;
  operatorBuilt = true;
  trackEdits($("operator"));
  $("create-table").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = { type: "table.create", system: $("new-system").value, name: $("new-name").value.trim() };
    if ($("new-id").value.trim()) body.id = $("new-id").value.trim();
    const ack = await run(body);
    if (ack) {
      gmLinks.set(ack.result.table, ack.result.url);
      showLink($("created-link"), ack.result.url, t("VIGIL.Page.tableCreated", { name: body.name }));
      $("new-name").value = "";
      $("new-id").value = "";
      refreshTables();
    }
  });
  $("import-table").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const file = $("import-file").files[0];
    if (!file) return say(t("VIGIL.Page.chooseFile"), "error");
    let document_;
    try {
      document_ = JSON.parse(await file.text());
    } catch {
      return say(t("VIGIL.Page.notJson", { file: file.name }), "error");
    }
    const ack = await run({ type: "table.import", document: document_ });
    if (ack) {
      say(t("VIGIL.Page.imported", { table: ack.result?.table ?? "" }));
      if (ack.result?.url) {
        gmLinks.set(ack.result.table, ack.result.url);
        showLink($("created-link"), ack.result.url, t("VIGIL.Page.itsGmLink"));
      }
      refreshTables();
    }
  });
  $("refresh-tables").addEventListener("click", refreshTables);
}

/**
 * The GM link of each table made in this page (created, imported or asked
 * for with "GM link"), by table id: the server keeps only token hashes, so
 * a link is shown when minted and kept in its table's row from then on.
 */
const gmLinks = new Map();

export async function refreshTables() {
  const ack = await run({ type: "table.list" });
  if (!ack) return;
  const rows = ack.result.map((row) => {
    const linkCell = h("div", { class: "table-link" });
    if (gmLinks.has(row.id)) showLink(linkCell, gmLinks.get(row.id), t("VIGIL.Page.gmLinkFor", { name: row.name }));
    return h(
      "tr",
      { dataset: { table: row.id } },
      h("td", {}, h("strong", {}, row.name), h("div", { class: "muted" }, row.id), linkCell),
      h("td", {}, t(`VIGIL.Game.${row.system}`)),
      // Another node's table: its owner alone knows these (a cluster).
      h("td", { class: "num" }, String(row.characters ?? "—")),
      h("td", { class: "num" }, String(row.rev ?? "—")),
      h("td", {}, row.archived ? t("VIGIL.Page.archived") : t("VIGIL.Page.active")),
      h(
        "td",
        {},
        h(
        "div",
        { class: "row-actions" },
        h("button", { type: "button", class: "btn small", "aria-label": t("VIGIL.Page.gmLinkOf", { name: row.name }), onclick: () => openAsGm(row, linkCell) }, t("VIGIL.Page.gmLink")),
        h("button", { type: "button", class: "btn small", onclick: () => exportTable(row.id) }, t("VIGIL.Page.export")),
        h(
          "button",
          { type: "button", class: "btn small", onclick: async () => (await run({ type: "table.archive", archived: !row.archived }, { table: row.id })) && refreshTables() },
          row.archived ? t("VIGIL.Page.unarchive") : t("VIGIL.Page.archive"),
        ),
        confirmButton(t("VIGIL.Page.deleteName", { name: row.name }), t("VIGIL.Page.delete"), async () => (await run({ type: "table.delete", table: row.id })) && refreshTables()),
        ),
      ),
    );
  });
  swap($("tables-body"), rows.length ? rows : h("tr", {}, h("td", { colspan: 6, class: "muted" }, t("VIGIL.Page.noTables"))));
}

async function openAsGm(table, cell) {
  // Labelled with the role, as the server's own GM link is: the GM's list of
  // links words it in the reader's language (invites.js tokenName).
  const ack = await run({ type: "token.mint", role: "gm", label: "gm" }, { table: table.id });
  if (!ack) return;
  gmLinks.set(table.id, ack.result.url);
  showLink(cell, ack.result.url, t("VIGIL.Page.gmLinkFor", { name: table.name }));
}

async function exportTable(tableId) {
  const ack = await run({ type: "table.export" }, { table: tableId });
  if (!ack) return;
  download(ack.result, `vigil-${tableId}.json`);
  say(t("VIGIL.Page.exported"));
}
