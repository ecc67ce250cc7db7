// Renders /openapi.json as a list of operations. Plain DOM, no dependencies, no network beyond
// this daemon (the page must work offline).
(async () => {
  const main = document.getElementById("ops");
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    for (const c of children) node.append(c);
    return node;
  };
  const schemaBlock = (label, schema) => (schema ? [el("h4", {}, label), el("pre", {}, JSON.stringify(schema, null, 2))] : []);
  let spec;
  try {
    const res = await fetch("/openapi.json");
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    spec = await res.json();
  } catch (err) {
    main.replaceChildren(el("p", {}, `Could not load /openapi.json: ${err.message}`));
    return;
  }
  document.getElementById("version").textContent = `Version ${spec.info?.version ?? "?"}.`;
  const ops = [];
  for (const [path, item] of Object.entries(spec.paths ?? {}))
    for (const [method, op] of Object.entries(item)) ops.push({ path, method: method.toUpperCase(), op });
  ops.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  main.replaceChildren(
    ...ops.map(({ path, method, op }) => {
      const tags = (op["x-svc-capability"] ?? []).map((t) => el("span", { class: "tag" }, t));
      if (op["x-svc-strict"]) tags.push(el("span", { class: "tag" }, "strict"));
      const params = (op.parameters ?? []).map((p) => el("li", {}, el("code", {}, `${p.in} ${p.name}`), p.required ? " (required)" : ""));
      const body = op.requestBody?.content?.["application/json"]?.schema;
      const responses = Object.entries(op.responses ?? {}).flatMap(([status, r]) =>
        schemaBlock(`Response ${status}`, r.content?.["application/json"]?.schema),
      );
      return el(
        "details",
        {},
        el("summary", {}, el("span", { class: `method ${method}` }, method), el("code", {}, path), " ", op.summary ?? "", ...tags),
        ...(op.description ? [el("p", {}, op.description)] : []),
        ...(params.length ? [el("h4", {}, "Parameters"), el("ul", {}, ...params)] : []),
        ...schemaBlock("Request body", body),
        ...responses,
      );
    }),
  );
})();
