/**
 * The GM's invites: the table's links (player and spectator), each
 * revocable with a confirmation.
 */

import { h, swap } from "./common.js";
import { $, confirmButton, page, run, say } from "./page.js";

export async function refreshTokens() {
  const ack = await run({ type: "token.list" });
  if (!ack) return;
  const rows = ack.result
    .filter((t) => !t.revoked)
    .map((t) =>
      h(
        "tr",
        { dataset: { token: t.token_id } },
        h("td", {}, t.label || t.token_id, h("div", { class: "muted" }, t.role, t.chars?.length ? `: ${t.chars.map((c) => page.names[c] ?? c).join(", ")}` : "")),
        h("td", {}, t.expires ? new Date(t.expires * 1000).toLocaleDateString() : "never"),
        h(
          "td",
          {},
          t.token_id === page.client.welcome?.token_id
            ? h("span", { class: "muted" }, "this page")
            : confirmButton(`Revoke ${t.label || t.token_id}`, "Revoke", async () => {
                if (await run({ type: "token.revoke", token_id: t.token_id })) {
                  say(`Revoked ${t.label || t.token_id}.`);
                  refreshTokens();
                }
              }, null, "token.revoke"),
        ),
      ),
    );
  swap($("tokens-body"), rows);
}
