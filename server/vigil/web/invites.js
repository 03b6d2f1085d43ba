/**
 * The GM's invites: the table's links (player and spectator), each
 * revocable with a confirmation.
 */

import { h, locale, swap, t } from "./common.js";
import { $, confirmButton, page, run, say } from "./page.js";

/**
 * What the GM reads as a link's name: one the GM typed is a name; a label the
 * server or the operator page gave (the GM link's "gm") is the role's word,
 * so that the list names every link in the reader's language, never by id.
 */
function tokenName(tok) {
  return tok.label && tok.label !== tok.role ? tok.label : t(`VIGIL.Page.role.${tok.role}`);
}

export async function refreshTokens() {
  const ack = await run({ type: "token.list" });
  if (!ack) return;
  const rows = ack.result
    .filter((tok) => !tok.revoked)
    .map((tok) =>
      h(
        "tr",
        { dataset: { token: tok.token_id } },
        h("td", {}, tokenName(tok), h("div", { class: "muted" }, t(`VIGIL.Page.role.${tok.role}`), tok.chars?.length ? `: ${tok.chars.map((c) => page.names[c] ?? c).join(", ")}` : "")),
        h("td", {}, tok.expires ? new Date(tok.expires * 1000).toLocaleDateString(locale) : t("VIGIL.Page.never")),
        h(
          "td",
          {},
          tok.token_id === page.client.welcome?.token_id
            ? h("span", { class: "muted" }, t("VIGIL.Page.thisPage"))
            : confirmButton(t("VIGIL.Page.revokeName", { name: tokenName(tok) }), t("VIGIL.Page.revoke"), async () => {
                if (await run({ type: "token.revoke", token_id: tok.token_id })) {
                  say(t("VIGIL.Page.revoked", { name: tokenName(tok) }));
                  refreshTokens();
                }
              }, null, "token.revoke"),
        ),
      ),
    );
  swap($("tokens-body"), rows);
}
