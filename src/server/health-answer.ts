/** The shallow `GET /health` answer: the route's, and the front door's before and after the app is built. */
const OK_BODY = JSON.stringify({ status: "ok" });
const OK_HEADERS = { "Content-Type": "application/json; charset=utf-8" };

export const shallowHealth = () => new Response(OK_BODY, { headers: OK_HEADERS });
