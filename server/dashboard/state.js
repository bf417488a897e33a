// What the page holds between renders: the token (for this tab only), the workers last
// fetched, the selected worker and tab, and the live event stream.

/** Where the token is kept: sessionStorage, so it lives as long as the tab. */
export const TOKEN_KEY = "workcell.token";

export const state = {
  token: sessionStorage.getItem(TOKEN_KEY),
  workers: [],
  selected: null,
  tab: "events",
  lastSeq: 0,
  stream: null,
};
