// Placeholder until the UI lands (h-webui owns src/web): mounts a heading into #app.
const app = document.getElementById("app");
if (app) app.textContent = "svc";
