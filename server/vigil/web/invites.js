/**
 * The GM's invites: the table's links (player and spectator), each
 * revocable with a confirmation.
 */

import { h, locale, swap, t } from "./common.js";
import { $, confirmButton, page, run, say } from "./page.js";

export async function refreshTokens() {
  const ack = await run({ type: "token.list" });
  if (!ack) return;
  const rows = ack.result
    .filter((tok) => !tok.revoked)
    .map((tok) =>
      h(
        "tr",
        { dataset: { token: tok.token_id } },
        // A label the server gave (the GM link's "gm") is the role's word; one the GM typed is a name.
        h("td", {}, tok.label && tok.label !== tok.role ? tok.label : t(`VIGIL.Page.role.${tok.role}`), h("div", { class: "muted" }, t(`VIGIL.Page.role.${tok.role}`), tok.chars?.length ? `: ${tok.chars.map((c) => page.names[c] ?? c).join(", ")}` : "")),
        h("td", {}, tok.expires ? new Date(tok.expires * 1000).toLocaleDateString(locale) : t("VIGIL.Page.never")),
        h(
          "td",
          {},
          tok.token_id === page.client.welcome?.token_id
            ? h("span", { class: "muted" }, t("VIGIL.Page.thisPage"))
            : confirmButton(t("VIGIL.Page.revokeName", { name: tok.label || tok.token_id }), t("VIGIL.Page.revoke"), async () => {
                if (await run({ type: "token.revoke", token_id: tok.token_id })) {
                  say(t("VIGIL.Page.revoked", { name: tok.label || tok.token_id }));
                  refreshTokens();
                }
              }, null, "token.revoke"),
        ),
      ),
    );
  swap($("tokens-body"), rows);
}
