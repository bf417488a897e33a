// The sign-in form, and signing out (on request, or when the token is refused).
import { $ } from "./dom.js";
import { state, TOKEN_KEY } from "./state.js";

/** Hides the app and asks for the token, with `message` saying why. */
export function showLogin(message = "") {
  $("app").hidden = true;
  $("login").hidden = false;
  $("sign-out").hidden = true;
  $("login-error").textContent = message;
  $("connection").textContent = "";
  $("token").focus();
}

/** Forgets the token, stops the event stream and shows the sign-in form. */
export function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  state.token = null;
  state.stream?.abort();
  state.stream = null;
  showLogin(message);
}
