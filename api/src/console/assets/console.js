// The Shutterbox console (docs/console.md): a client of the management API, with no framework and no
// asset from elsewhere. Views are chosen by the URL's hash (#/files, #/file/<id>, #/warm, #/warm/<batch>);
// everything shown comes from /v1 with the key the user signed in with, kept in sessionStorage only.

const API = new URL("../v1/", location.href);
const KEY_ITEM = "shutterbox.key";
const SELECTION_ITEM = "shutterbox.selection";
const BATCHES_ITEM = "shutterbox.batches";
const UPLOADS_ITEM = "shutterbox.uploads";
// Files up to this size go in one PATCH; larger ones in chunks of it, each resumable.
const CHUNK = 8 * 1024 * 1024;
// Query parameters of delivery that are not transformations: presets have their own control, and the
// signature is transform-url's to add.
const NOT_CONTROLS = new Set(["preset", "sig", "exp"]);

const session = { key: null, info: null };
let documentParams = null;

// ---------------------------------------------------------------------------------------------------------
// Small helpers

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "text") el.textContent = value;
    else if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else el.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const $ = (selector, root = document) => root.querySelector(selector);

function announce(message) {
  const status = $("#status");
  status.textContent = message;
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => (status.textContent = ""), 6000);
}

function bytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = n;
  let unit = -1;
  do {
    value /= 1024;
    unit += 1;
  } while (value >= 1024 && unit < units.length - 1);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function dimensions(file) {
  return file.width && file.height ? `${file.width} × ${file.height}` : "";
}

// "Delivery URL" → "delivery URL", for a sentence.
function lower(label) {
  return label[0].toLowerCase() + label.slice(1);
}

function allows(operation) {
  return Boolean(session.info && session.info.allows.includes(operation));
}

function hashParams() {
  const [, query = ""] = location.hash.split("?");
  return new URLSearchParams(query);
}

function setHashParams(path, params) {
  const query = [...params].filter(([, v]) => v !== "" && v !== null).length ? `?${params}` : "";
  history.replaceState(null, "", `#${path}${query}`);
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    announce(`Copied the ${what}.`);
  } catch {
    announce(`Could not copy: select the ${what} and copy it.`);
  }
}

class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function failureOf(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.message) message = body.message;
  } catch {
    // Not JSON: the status says it.
  }
  return new ApiFailure(response.status, message);
}

async function api(path, { method = "GET", query = {}, json, key = session.key } = {}) {
  const url = new URL(path, API);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, value);
  }
  const headers = { Authorization: `ApiKey ${key}` };
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  }
  let response;
  try {
    response = await fetch(url, { method, headers, body });
  } catch (error) {
    throw new ApiFailure(0, `The service could not be reached (${error.message}).`);
  }
  if (!response.ok) {
    const failure = await failureOf(response);
    if (response.status === 401 && key === session.key && session.key) {
      signOut("The service no longer takes this key: sign in again.");
    }
    throw failure;
  }
  return response.status === 204 ? null : response.json();
}

// ---------------------------------------------------------------------------------------------------------
// Signing in and out

async function signIn(key) {
  const info = await api("key", { key });
  session.key = key;
  session.info = info;
  sessionStorage.setItem(KEY_ITEM, key);
}

function signOut(message = "Signed out.") {
  session.key = null;
  session.info = null;
  sessionStorage.removeItem(KEY_ITEM);
  sessionStorage.removeItem(SELECTION_ITEM);
  sessionStorage.removeItem(BATCHES_ITEM);
  sessionStorage.removeItem(UPLOADS_ITEM);
  history.replaceState(null, "", "#/");
  showSignIn();
  announce(message);
}

function showSignIn() {
  $("#bar").hidden = true;
  $("#view").replaceChildren();
  $("#sign-in-view").hidden = false;
  $("#key").value = "";
  $("#key").focus();
  document.title = "Sign in · Shutterbox console";
}

function showApp() {
  $("#sign-in-view").hidden = true;
  $("#bar").hidden = false;
  $("#who").textContent = `${session.info.account} · ${session.info.scope} key`;
  $("#nav-warm").hidden = !allows("warm");
}

// ---------------------------------------------------------------------------------------------------------
// Routing

let leaveView = () => {};

async function route() {
  if (!session.key) return showSignIn();
  leaveView();
  leaveView = () => {};
  const path = location.hash.slice(1).split("?")[0] || "/files";
  const view = $("#view");
  view.replaceChildren();
  for (const link of document.querySelectorAll(".bar nav a")) {
    const section = link.getAttribute("href").slice(1);
    const here = section === "/files" ? !path.startsWith("/warm") : path.startsWith(section);
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  try {
    const [, section, id] = path.split("/");
    if (section === "file" && id) await fileView(view, decodeURIComponent(id));
    else if (section === "warm" && id) await batchView(view, decodeURIComponent(id));
    else if (section === "warm") await warmView(view);
    else await filesView(view);
  } catch (error) {
    view.replaceChildren(h("h1", { text: "Something went wrong" }), h("p", { class: "error", text: error.message }));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Files: folders, a filtered and sorted page of files as a grid or a list, uploads

const SORTS = [
  ["-updated", "Newest first"],
  ["updated", "Oldest first"],
  ["name", "Name A–Z"],
  ["-name", "Name Z–A"],
  ["-size", "Largest first"],
  ["size", "Smallest first"],
  ["type", "Type"],
];
const TYPES = [
  ["", "All types"],
  ["image", "Images"],
  ["video", "Videos"],
  ["json", "JSON"],
  ["file", "Other files"],
];

function selection() {
  return new Set(JSON.parse(sessionStorage.getItem(SELECTION_ITEM) || "[]"));
}

function saveSelection(ids) {
  sessionStorage.setItem(SELECTION_ITEM, JSON.stringify([...ids]));
}

async function filesView(view) {
  const params = hashParams();
  const state = {
    folder: params.get("folder") || "",
    name: params.get("name") || "",
    type: params.get("type") || "",
    sort: params.get("sort") || "-updated",
    page: Number(params.get("page")) || 1,
    pageSize: Number(params.get("pageSize")) || 48,
    layout: params.get("view") === "list" ? "list" : "grid",
    folderPath: "",
  };
  document.title = "Files · Shutterbox console";

  const select = (id, label, options, value, onchange) =>
    h(
      "div",
      { class: "field" },
      h("label", { for: id, text: label }),
      h("select", { id, onchange }, options.map(([v, text]) => h("option", { value: v, selected: v === value }, text))),
    );
  const search = h("input", {
    id: "search",
    type: "search",
    value: state.name,
    placeholder: "e.g. cat",
    oninput: () => {
      clearTimeout(search.timer);
      search.timer = setTimeout(() => {
        state.name = search.value.trim();
        state.page = 1;
        load();
      }, 250);
    },
  });
  const picker = h("input", {
    type: "file",
    multiple: true,
    id: "file-picker",
    hidden: true,
    onchange: () => {
      upload([...picker.files]);
      picker.value = "";
    },
  });
  const layoutButton = (layout, text) =>
    h("button", {
      type: "button",
      class: "quiet",
      "aria-pressed": String(state.layout === layout),
      id: `layout-${layout}`,
      onclick: () => {
        state.layout = layout;
        view.querySelectorAll("[id^=layout-]").forEach((b) => b.setAttribute("aria-pressed", String(b.id === `layout-${layout}`)));
        load();
      },
      text,
    });
  const warmSelected = h("a", { class: "button quiet", href: "#/warm?selected=1", id: "warm-selected" });
  const crumbs = h("nav", { class: "crumbs", "aria-label": "Folder" });
  const folders = h("ul", { class: "folders", "aria-label": "Folders" });
  const results = h("div", { id: "results", "aria-live": "polite", "aria-busy": "true" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages" });
  const uploads = h("ul", { class: "uploads", "aria-label": "Uploads" });
  const drop = allows("presign")
    ? h(
        "div",
        { class: "drop", id: "drop" },
        "Drop files anywhere on this page to upload them here, or ",
        h("button", { type: "button", class: "quiet", id: "upload-button", onclick: () => picker.click(), text: "choose files" }),
        picker,
      )
    : null;

  view.append(
    h("h1", { text: "Files" }),
    crumbs,
    h(
      "div",
      { class: "toolbar", role: "search" },
      h("div", { class: "field" }, h("label", { for: "search", text: "Search all folders by name" }), search),
      select("type-filter", "Type", TYPES, state.type, (e) => {
        state.type = e.target.value;
        state.page = 1;
        load();
      }),
      select("sort", "Sort", SORTS, state.sort, (e) => {
        state.sort = e.target.value;
        state.page = 1;
        load();
      }),
      select(
        "page-size",
        "Per page",
        ["24", "48", "96"].map((n) => [n, n]),
        String(state.pageSize),
        (e) => {
          state.pageSize = Number(e.target.value);
          state.page = 1;
          load();
        },
      ),
      h("div", { class: "spacer" }),
      h("div", { role: "group", "aria-label": "Layout" }, layoutButton("grid", "Grid"), " ", layoutButton("list", "List")),
      allows("warm") ? warmSelected : null,
    ),
    drop,
    uploads,
    folders,
    results,
    pager,
  );
  // Once another view is shown, nothing of this one may run (a late search would rewrite the URL).
  let active = true;
  const forget = [() => (active = false), () => clearTimeout(search.timer), () => clearTimeout(reloadTimer)];
  leaveView = () => forget.forEach((f) => f());
  const refreshSelection = () => {
    const count = selection().size;
    warmSelected.textContent = `Warm ${count} selected`;
    warmSelected.hidden = count === 0;
  };
  refreshSelection();

  if (drop) {
    const over = (e) => {
      if (![...(e.dataTransfer?.types || [])].includes("Files")) return;
      e.preventDefault();
      drop.classList.add("over");
    };
    const onDrop = (e) => {
      if (!e.dataTransfer?.files?.length) return;
      e.preventDefault();
      drop.classList.remove("over");
      upload([...e.dataTransfer.files]);
    };
    const leave = () => drop.classList.remove("over");
    document.addEventListener("dragover", over);
    document.addEventListener("drop", onDrop);
    document.addEventListener("dragleave", leave);
    forget.push(() => {
      document.removeEventListener("dragover", over);
      document.removeEventListener("drop", onDrop);
      document.removeEventListener("dragleave", leave);
    });
  }

  async function upload(files) {
    const rows = files.map((file) => uploadRow(file, uploads));
    // Two at a time: each keeps a connection busy, and the rest of the page stays responsive.
    const queue = files.map((file, i) => [file, rows[i]]);
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [file, row] = next;
        try {
          const uploaded = await uploadFile(file, state.folderPath, row.progress);
          row.done(uploaded);
          scheduleReload();
        } catch (error) {
          row.failed(error.message);
        }
      }
    };
    await Promise.all([worker(), worker()]);
  }
  let reloadTimer;
  const scheduleReload = () => {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(load, 150);
  };

  let generation = 0;
  async function load() {
    if (!active) return;
    const mine = ++generation;
    const searching = state.name !== "";
    const query = new URLSearchParams();
    if (state.folder) query.set("folder", state.folder);
    if (state.name) query.set("name", state.name);
    if (state.type) query.set("type", state.type);
    if (state.sort !== "-updated") query.set("sort", state.sort);
    if (state.page !== 1) query.set("page", state.page);
    if (state.pageSize !== 48) query.set("pageSize", state.pageSize);
    if (state.layout !== "grid") query.set("view", state.layout);
    setHashParams("/files", query);
    results.setAttribute("aria-busy", "true");
    const folderId = searching ? undefined : state.folder || "root";
    const [listing, children] = await Promise.all([
      api("files", {
        query: { page: state.page, pageSize: state.pageSize, name: state.name, type: state.type, sort: state.sort, folderId },
      }),
      searching ? null : api("folders", { query: { parentId: state.folder || "root" } }),
    ]).catch((error) => {
      results.replaceChildren(h("p", { class: "error", role: "alert", text: error.message }));
      results.setAttribute("aria-busy", "false");
      return [null, null];
    });
    if (!listing || mine !== generation || !active) return;
    renderCrumbs(children);
    renderFolders(children);
    renderFiles(listing.files);
    renderPager(listing.pagination);
    results.setAttribute("aria-busy", "false");
    performance.mark("shutterbox:files-shown");
  }

  function renderCrumbs(children) {
    const trail = children ? children.parents : [];
    state.folderPath = trail.length ? trail[trail.length - 1].path : "";
    const items = [h("li", {}, h("a", { href: "#/files", text: "All folders" }))];
    for (const folder of trail) items.push(h("li", {}, h("a", { href: `#/files?folder=${encodeURIComponent(folder.id)}`, text: folder.name })));
    if (state.name) items.push(h("li", {}, `Search: “${state.name}”`));
    const last = items[items.length - 1].querySelector("a");
    if (last && !state.name) last.setAttribute("aria-current", "page");
    crumbs.replaceChildren(h("ol", {}, items));
    if (drop) drop.firstChild.textContent = `Drop files anywhere on this page to upload them into ${state.folderPath ? `“${state.folderPath}”` : "the top level"}, or `;
  }

  function renderFolders(children) {
    folders.hidden = !children || children.folders.length === 0;
    if (!children) return;
    folders.replaceChildren(
      ...children.folders.map((folder) =>
        h(
          "li",
          {},
          h(
            "a",
            { href: `#/files?folder=${encodeURIComponent(folder.id)}` },
            `${folder.name} `,
            h("span", { class: "sub", text: `(${folder.fileCount} files${folder.folderCount ? `, ${folder.folderCount} folders` : ""})` }),
          ),
        ),
      ),
    );
  }

  function pick(file) {
    if (!allows("warm") || file.type !== "image") return null;
    return h("input", {
      type: "checkbox",
      class: "pick",
      "aria-label": `Select ${file.name} for warming`,
      checked: selection().has(file.id),
      onchange: (e) => {
        const ids = selection();
        if (e.target.checked) ids.add(file.id);
        else ids.delete(file.id);
        saveSelection(ids);
        refreshSelection();
      },
    });
  }

  function thumbnail(file, size) {
    const img = h("img", { src: file.secureThumbnailUrl, alt: "", loading: "lazy", decoding: "async", width: size, height: size });
    if (file.dominantColor) img.style.backgroundColor = file.dominantColor;
    return img;
  }

  function renderFiles(files) {
    if (files.length === 0) {
      results.replaceChildren(h("p", { class: "empty", text: state.name || state.type ? "No file matches." : "No files here yet." }));
      return;
    }
    if (state.layout === "grid") {
      results.replaceChildren(
        h(
          "ul",
          { class: "grid", "aria-label": "Files" },
          files.map((file) => {
            const thumb = h("div", { class: "thumb" }, thumbnail(file, 170));
            if (file.placeholder) thumb.style.backgroundImage = `url("${file.placeholder}")`;
            return h(
              "li",
              { class: "card", "data-file-id": file.id, "data-type": file.type },
              pick(file),
              h(
                "a",
                { href: `#/file/${encodeURIComponent(file.id)}` },
                thumb,
                h(
                  "div",
                  { class: "meta" },
                  h("span", { class: "name", text: file.name, title: file.name }),
                  h("span", { class: "sub", text: [file.rawType, file.size, dimensions(file)].filter(Boolean).join(" · ") }),
                  h("span", { class: "sub", text: file.updated }),
                ),
              ),
            );
          }),
        ),
      );
    } else {
      results.replaceChildren(
        h(
          "table",
          { class: "list", "aria-label": "Files" },
          h(
            "thead",
            {},
            h("tr", {}, allows("warm") ? h("th", { scope: "col", text: "Select" }) : null, ...["Preview", "Name", "Type", "Size", "Dimensions", "Updated"].map((t) => h("th", { scope: "col", class: t === "Size" ? "num" : "", text: t }))),
          ),
          h(
            "tbody",
            {},
            files.map((file) =>
              h(
                "tr",
                { "data-file-id": file.id },
                allows("warm") ? h("td", {}, pick(file)) : null,
                h("td", {}, thumbnail(file, 40)),
                h("td", {}, h("a", { href: `#/file/${encodeURIComponent(file.id)}`, text: file.name })),
                h("td", { text: file.rawType }),
                h("td", { class: "num", text: file.size }),
                h("td", { text: dimensions(file) }),
                h("td", { text: file.updated, title: file.rawUpdated }),
              ),
            ),
          ),
        ),
      );
    }
  }

  function renderPager(pagination) {
    const { page, totalPages, totalCount } = pagination;
    const go = (to) => () => {
      state.page = to;
      load();
      results.scrollIntoView?.();
    };
    pager.replaceChildren(
      h("button", { type: "button", class: "quiet", disabled: page <= 1, onclick: go(page - 1), text: "Previous page" }),
      h("span", { id: "page-status", text: `Page ${page} of ${Math.max(totalPages, 1)} · ${totalCount} files` }),
      h("button", { type: "button", class: "quiet", disabled: page >= totalPages, onclick: go(page + 1), text: "Next page" }),
    );
  }

  await load();
}

// ---------------------------------------------------------------------------------------------------------
// Uploads: every file through the resumable-upload endpoint (TUS 1.0.0), in one PATCH up to CHUNK and in
// CHUNK-sized PATCHes above it. A failed PATCH is resumed from the offset the service reports; an upload
// cut by a closed tab resumes when the same file is chosen again in this tab.

function uploadRow(file, list) {
  const progress = h("progress", { max: 100, value: 0, "aria-label": `Upload of ${file.name}` });
  const status = h("span", { class: "upload-status", text: "Waiting" });
  const row = h("li", { "data-upload": file.name }, h("span", { class: "name", text: file.name }), progress, status);
  list.append(row);
  return {
    progress: (fraction) => {
      progress.value = Math.round(fraction * 100);
      status.textContent = `${Math.round(fraction * 100)}% of ${bytes(file.size)}`;
    },
    done: (uploaded) => {
      progress.value = 100;
      status.replaceChildren(h("a", { href: `#/file/${encodeURIComponent(uploaded.id)}`, class: "ok", text: "Uploaded" }));
      row.dataset.state = "done";
      announce(`Uploaded ${file.name}.`);
    },
    failed: (message) => {
      status.replaceChildren(h("span", { class: "error", text: `Refused: ${message}` }));
      row.dataset.state = "failed";
      announce(`${file.name} was not uploaded: ${message}`);
    },
  };
}

function base64(text) {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function resumableUploads() {
  return JSON.parse(sessionStorage.getItem(UPLOADS_ITEM) || "{}");
}

function rememberUpload(fingerprint, url) {
  const uploads = resumableUploads();
  if (url) uploads[fingerprint] = url;
  else delete uploads[fingerprint];
  sessionStorage.setItem(UPLOADS_ITEM, JSON.stringify(uploads));
}

function xhr(method, url, headers, body, onProgress) {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open(method, url);
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    if (onProgress) request.upload.onprogress = (e) => onProgress(e.loaded);
    request.onload = () => resolve(request);
    request.onerror = () => resolve(null);
    request.send(body);
  });
}

function messageOf(request) {
  try {
    return JSON.parse(request.responseText).message || `${request.status} ${request.statusText}`;
  } catch {
    return request.responseText || `${request.status} ${request.statusText}`;
  }
}

async function uploadFile(file, folderPath, onProgress) {
  const fingerprint = [file.name, file.size, file.lastModified, folderPath].join("|");
  const tus = { "Tus-Resumable": "1.0.0", Authorization: `ApiKey ${session.key}` };
  let url = resumableUploads()[fingerprint];
  let offset = 0;
  if (url) {
    const head = await xhr("HEAD", url, tus);
    if (head && head.status === 200) offset = Number(head.getResponseHeader("Upload-Offset")) || 0;
    else url = null;
  }
  if (!url) {
    const metadata = [`filename ${base64(file.name)}`, `filetype ${base64(file.type || "application/octet-stream")}`];
    if (folderPath) metadata.push(`folderName ${base64(folderPath)}`);
    const created = await xhr("POST", new URL("uploads/tus", API), { ...tus, "Upload-Length": String(file.size), "Upload-Metadata": metadata.join(",") });
    if (!created) throw new Error("the service could not be reached");
    if (created.status !== 201) throw new Error(messageOf(created));
    url = new URL(created.getResponseHeader("Location"), API).href;
    rememberUpload(fingerprint, url);
  }
  let fileId = null;
  let retries = 0;
  onProgress(file.size ? offset / file.size : 0);
  while (offset < file.size || (file.size === 0 && !fileId)) {
    const end = Math.min(offset + CHUNK, file.size);
    const sent = await xhr(
      "PATCH",
      url,
      { ...tus, "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" },
      file.slice(offset, end),
      (loaded) => onProgress(file.size ? (offset + loaded) / file.size : 1),
    );
    if (sent && sent.status === 204) {
      offset = Number(sent.getResponseHeader("Upload-Offset"));
      fileId = sent.getResponseHeader("Shutterbox-File-Id") || fileId;
      retries = 0;
      if (file.size === 0) break;
      continue;
    }
    // The service refused the upload itself (type, size, scope, rate limit): say why, do not retry.
    if (sent && sent.status >= 400 && sent.status < 500 && sent.status !== 409 && sent.status !== 423 && sent.status !== 429) {
      rememberUpload(fingerprint, null);
      throw new Error(messageOf(sent));
    }
    retries += 1;
    if (retries > 5) throw new Error(sent ? messageOf(sent) : "the connection failed five times in a row");
    await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** retries));
    const head = await xhr("HEAD", url, tus);
    if (head && head.status === 200) offset = Number(head.getResponseHeader("Upload-Offset")) || 0;
  }
  rememberUpload(fingerprint, null);
  onProgress(1);
  if (!fileId) throw new Error("the service did not name the uploaded file");
  const { file: uploaded } = await api(`files/${encodeURIComponent(fileId)}`);
  return uploaded;
}

// ---------------------------------------------------------------------------------------------------------
// A file's page: preview, every field, links to copy, delete, and the transformation builder

async function fileView(view, id) {
  const { file } = await api(`files/${encodeURIComponent(id)}`);
  document.title = `${file.name} · Shutterbox console`;
  const preview = h("div", { class: "preview", id: "preview" });
  const fields = h(
    "dl",
    { class: "fields", id: "fields" },
    Object.entries(file).flatMap(([name, value]) => [
      h("dt", { text: name }),
      h("dd", { class: typeof value === "string" && value.length > 40 ? "mono" : "", text: value === null ? "—" : typeof value === "object" ? JSON.stringify(value) : String(value) }),
    ]),
  );
  const links = h("div", { id: "links" });
  const copyRow = (label, value, id) =>
    h(
      "div",
      { class: "copy-row" },
      h("label", { for: id, text: label }),
      h("input", { id, readonly: true, value, class: "mono" }),
      h("button", { type: "button", class: "quiet", "aria-label": `Copy the ${lower(label)}`, onclick: () => copy($(`#${id}`).value, lower(label)), text: "Copy" }),
    );
  links.append(copyRow("Delivery URL", file.secureUrl, "secure-url"), copyRow("Raw URL", file.rawUrl, "raw-url"), copyRow("Thumbnail URL", file.secureThumbnailUrl, "thumbnail-url"));

  const remove = allows("delete")
    ? h("button", {
        type: "button",
        class: "danger",
        id: "delete",
        onclick: async () => {
          const dialog = $("#confirm-dialog");
          $("#confirm-text").textContent = `“${file.name}” and its URLs will be gone for good.`;
          dialog.returnValue = "";
          dialog.showModal();
          const answer = await new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true }));
          if (answer !== "ok") return;
          try {
            await api(`files/${encodeURIComponent(file.id)}`, { method: "DELETE" });
            const ids = selection();
            ids.delete(file.id);
            saveSelection(ids);
            announce(`Deleted ${file.name}.`);
            location.hash = "#/files";
          } catch (error) {
            announce(`Not deleted: ${error.message}`);
          }
        },
        text: "Delete file",
      })
    : null;

  view.append(
    h("nav", { class: "crumbs", "aria-label": "Folder" }, h("ol", {}, h("li", {}, h("a", { href: "#/files", text: "Files" })), h("li", { "aria-current": "page" }, file.name))),
    h("h1", { text: file.name }),
    h(
      "div",
      { class: "file-page" },
      h("section", { "aria-labelledby": "preview-title" }, h("h2", { id: "preview-title", text: "Preview" }), preview, h("p", { class: "facts", id: "preview-facts" })),
      h("section", { "aria-labelledby": "details-title" }, h("h2", { id: "details-title", text: "Details" }), fields, h("h2", { text: "Links" }), links, remove ? h("h2", { text: "Delete" }) : null, remove),
    ),
  );

  if (file.type !== "image") {
    preview.append(h("img", { src: file.secureThumbnailUrl, alt: `Placeholder for ${file.name} (${file.rawType})` }));
    $("#preview-facts").textContent = `No preview for ${file.rawType}: its placeholder is shown.`;
    return;
  }
  await builder(view, file, preview, links);
}

async function deliveryParams() {
  if (!documentParams) {
    const response = await fetch(new URL("openapi.json", API));
    const spec = await response.json();
    const operation = Object.values(spec.paths).map((p) => p.get).find((op) => op && op.operationId === "deliverFile");
    documentParams = operation.parameters.filter((p) => p.in === "query" && !NOT_CONTROLS.has(p.name));
  }
  return documentParams;
}

// A control for a delivery parameter, from its schema in the OpenAPI document: a choice for an enum or a
// boolean, a number field for a number, text otherwise. Values stay text: the query is what delivery reads.
function control(param, onchange) {
  const id = `param-${param.name}`;
  const schema = param.schema || {};
  const enumValues = schema.enum || (schema.anyOf || []).flatMap((s) => s.enum || []);
  let input;
  if (schema.type === "boolean") {
    input = h("select", { id, name: param.name }, h("option", { value: "", text: "—" }), h("option", { value: "true", text: "true" }), h("option", { value: "false", text: "false" }));
  } else if (schema.enum) {
    input = h("select", { id, name: param.name }, h("option", { value: "", text: "—" }), enumValues.map((v) => h("option", { value: v, text: v })));
  } else {
    const numeric = schema.type === "integer" || schema.type === "number";
    input = h("input", {
      id,
      name: param.name,
      type: "text",
      inputmode: numeric ? "decimal" : null,
      autocomplete: "off",
      spellcheck: "false",
      placeholder: numeric ? `${schema.minimum ?? ""}–${schema.maximum ?? ""}` : enumValues.length ? enumValues.join(" | ") + " | …" : "",
    });
  }
  const error = h("p", { class: "error", id: `${id}-error` });
  const help = h("p", { class: "help", id: `${id}-help`, text: (param.description || "").replace(/`/g, "") });
  input.setAttribute("aria-describedby", `${id}-help ${id}-error`);
  input.addEventListener(input.tagName === "SELECT" ? "change" : "input", onchange);
  return { name: param.name, param, input, error, el: h("div", { class: "control" }, h("label", { for: id, text: param.name }), input, help, error) };
}

function typedValue(param, value) {
  const schema = param.schema || {};
  if (schema.type === "integer") return Number.parseInt(value, 10);
  if (schema.type === "number") return Number.parseFloat(value);
  if (schema.type === "boolean") return value === "true" || value === "1";
  if (schema.anyOf && /^\d+$/.test(value)) return Number.parseInt(value, 10);
  return value;
}

async function builder(view, file, preview, links) {
  const params = await deliveryParams();
  const rules = session.info.delivery;
  const controls = params.map((param) => control(param, () => schedule()));
  const presetSelect = h(
    "select",
    { id: "preset", onchange: () => schedule() },
    h("option", { value: "", text: "None: the parameters below" }),
    rules.presets.map((p) => h("option", { value: p.name, text: `${p.name} (${p.query})` })),
  );
  const generalError = h("p", { class: "error", id: "builder-error", role: "alert" });
  const urlField = h("input", { id: "transform-url", readonly: true, class: "mono", value: file.secureUrl });
  const img = h("img", { id: "preview-image", alt: `Preview of ${file.name}` });
  preview.append(img);
  const facts = $("#preview-facts");

  const section = h(
    "section",
    { "aria-labelledby": "builder-title", id: "builder" },
    h("h2", { id: "builder-title", text: "Transformation" }),
    rules.presetsOnly ? h("p", { class: "help", text: "This service renders presets only." }) : null,
    h("div", { class: "toolbar" }, h("div", { class: "field" }, h("label", { for: "preset", text: "Preset" }), presetSelect), h("button", { type: "button", class: "quiet", id: "reset", onclick: reset, text: "Reset" })),
    rules.presetsOnly ? null : h("div", { class: "builder" }, controls.map((c) => c.el)),
    generalError,
    h(
      "div",
      { class: "copy-row" },
      h("label", { for: "transform-url", text: rules.signedUrls ? "Signed URL" : "URL" }),
      urlField,
      h("button", { type: "button", class: "quiet", "aria-label": "Copy the transformation URL", onclick: () => copy(urlField.value, "transformation URL"), text: "Copy" }),
    ),
  );
  view.append(section);

  function reset() {
    presetSelect.value = "";
    for (const c of controls) c.input.value = "";
    schedule();
  }

  let timer;
  let generation = 0;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(render, 300);
  }

  function query() {
    const pairs = new URLSearchParams();
    if (presetSelect.value) {
      pairs.set("preset", presetSelect.value);
      return pairs;
    }
    for (const c of controls) if (c.input.value.trim() !== "") pairs.set(c.name, c.input.value.trim());
    return pairs;
  }

  function showError(message) {
    const named = /^([a-z]+)\b/.exec(message);
    const target = named && controls.find((c) => c.name === named[1]);
    if (target) {
      target.error.textContent = message;
      target.input.setAttribute("aria-invalid", "true");
    } else {
      generalError.textContent = message;
    }
  }

  // The URL the preview loads and the user copies: delivery's own, or transform-url's signed one.
  async function urlFor(pairs) {
    const plain = pairs.size ? `${file.secureUrl}?${pairs}` : file.secureUrl;
    if (!rules.signedUrls || pairs.size === 0 || pairs.has("preset")) return plain;
    // Delivery reads the parameters before it asks for the signature: a 400 names a bad one (its body says
    // which), a 403 means they are fine and unsigned.
    const probe = await fetch(plain);
    if (probe.status === 400) throw await failureOf(probe);
    if (!allows("transformUrl")) throw new ApiFailure(403, "Transformations need signed URLs, which only a secret key can ask for.");
    const body = Object.fromEntries([...pairs].map(([name, value]) => [name, typedValue(params.find((p) => p.name === name), value)]));
    const signed = await api(`file/${encodeURIComponent(file.id)}/transform-url`, { method: "POST", json: body });
    return signed.url;
  }

  async function render() {
    const mine = ++generation;
    for (const c of controls) {
      c.error.textContent = "";
      c.input.removeAttribute("aria-invalid");
    }
    generalError.textContent = "";
    preview.setAttribute("aria-busy", "true");
    const pairs = query();
    try {
      const url = await urlFor(pairs);
      const started = performance.now();
      const response = await fetch(url);
      if (!response.ok) throw await failureOf(response);
      const blob = await response.blob();
      const elapsed = performance.now() - started;
      if (mine !== generation) return;
      const timing = /variant;dur=([\d.]+)/.exec(response.headers.get("server-timing") || "");
      if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
      img.src = URL.createObjectURL(blob);
      await img.decode();
      if (mine !== generation) return;
      urlField.value = url;
      facts.textContent = [
        `${img.naturalWidth} × ${img.naturalHeight} px`,
        bytes(blob.size),
        blob.type,
        timing ? `rendered in ${Math.round(Number(timing[1]))} ms` : "served from memory",
        `${Math.round(elapsed)} ms in all`,
      ].join(" · ");
      img.dataset.query = String(pairs);
    } catch (error) {
      if (mine !== generation) return;
      showError(error.message);
      facts.textContent = "The preview shows the last valid transformation.";
    } finally {
      if (mine === generation) preview.setAttribute("aria-busy", "false");
    }
  }
  await render();
}

// ---------------------------------------------------------------------------------------------------------
// Warming: start a batch (files × transformations), watch it, and read each failed item's reason

function batches() {
  return JSON.parse(sessionStorage.getItem(BATCHES_ITEM) || "[]");
}

async function warmView(view) {
  document.title = "Warming · Shutterbox console";
  const selected = [...selection()];
  const useSelection = hashParams().get("selected") === "1" && selected.length > 0;
  const transformations = h("textarea", { id: "transformations", rows: 5, placeholder: "w=320\nw=640&format=webp", "aria-describedby": "transformations-help" });
  const error = h("p", { class: "error", id: "warm-error", role: "alert" });
  const presets = session.info.delivery.presets;
  const form = h(
    "form",
    {
      class: "warm-form",
      id: "warm-form",
      onsubmit: async (e) => {
        e.preventDefault();
        error.textContent = "";
        const lines = transformations.value.split("\n").map((l) => l.trim()).filter(Boolean);
        if (lines.length === 0) {
          error.textContent = "Give at least one transformation.";
          transformations.focus();
          return;
        }
        const which = form.querySelector("input[name=files]:checked").value;
        const body = { transformations: lines };
        if (which === "selected") body.fileIds = selected;
        try {
          const batch = await api("warm", { method: "POST", json: body });
          sessionStorage.setItem(BATCHES_ITEM, JSON.stringify([{ id: batch.batchId, total: batch.total, at: new Date().toISOString() }, ...batches()].slice(0, 20)));
          location.hash = `#/warm/${encodeURIComponent(batch.batchId)}`;
        } catch (failure) {
          error.textContent = failure.message;
        }
      },
    },
    h(
      "fieldset",
      {},
      h("legend", { text: "Files" }),
      h("label", {}, h("input", { type: "radio", name: "files", value: "all", checked: !useSelection }), " Every image file of the account"),
      h("br"),
      h("label", {}, h("input", { type: "radio", name: "files", value: "selected", checked: useSelection, disabled: selected.length === 0 }), ` The ${selected.length} files selected in Files`),
    ),
    h("label", { for: "transformations", text: "Transformations" }),
    transformations,
    h("p", { class: "help", id: "transformations-help", text: "One delivery query per line, e.g. w=640&format=webp or preset=thumb; each is rendered for every file." }),
    presets.length
      ? h(
          "div",
          {},
          "Add a preset: ",
          presets.map((p) => h("button", { type: "button", class: "quiet", onclick: () => (transformations.value += `${transformations.value && !transformations.value.endsWith("\n") ? "\n" : ""}preset=${p.name}\n`), text: p.name })),
        )
      : null,
    error,
    h("div", {}, h("button", { type: "submit", id: "warm-start", text: "Start warming" })),
  );
  const recent = batches();
  view.append(
    h("h1", { text: "Warming" }),
    h("p", { class: "help", text: "Render variants before anyone asks for them, so their first request is served from the store." }),
    form,
    recent.length ? h("h2", { text: "Batches started in this tab" }) : null,
    recent.length ? h("ul", {}, recent.map((b) => h("li", {}, h("a", { href: `#/warm/${encodeURIComponent(b.id)}`, text: `${b.id}` }), ` · ${b.total} items · ${new Date(b.at).toLocaleString()}`))) : null,
  );
}

async function batchView(view, id) {
  document.title = "Warming batch · Shutterbox console";
  let page = Number(hashParams().get("page")) || 1;
  const counts = h("div", { class: "counts", id: "batch-counts" });
  const progress = h("progress", { id: "batch-progress", max: 1, value: 0, "aria-label": "Items finished" });
  const failures = h("div", { id: "failures" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages of failures" });
  view.append(
    h("nav", { class: "crumbs", "aria-label": "Warming" }, h("ol", {}, h("li", {}, h("a", { href: "#/warm", text: "Warming" })), h("li", { "aria-current": "page" }, id))),
    h("h1", { text: "Warming batch" }),
    progress,
    counts,
    h("h2", { text: "Failed items" }),
    failures,
    pager,
  );
  let timer;
  let stopped = false;
  const names = new Map();
  leaveView = () => {
    stopped = true;
    clearTimeout(timer);
  };
  async function poll() {
    const batch = await api(`warm/${encodeURIComponent(id)}`, { query: { page, pageSize: 20 } });
    if (stopped) return;
    progress.max = Math.max(batch.total, 1);
    progress.value = batch.done + batch.failed;
    counts.replaceChildren(
      ...[
        ["Items", batch.total],
        ["Rendered", batch.done],
        ["Failed", batch.failed],
        ["Pending", batch.pending],
      ].map(([label, n]) => h("span", { "data-count": label.toLowerCase() }, h("strong", { text: n }), ` ${label.toLowerCase()}`)),
      h("span", { id: "batch-state", text: batch.complete ? "Finished" : "Running…" }),
    );
    // The failed items' files by name (a page names at most 20); a file deleted since keeps its id.
    await Promise.all(
      [...new Set(batch.failures.map((f) => f.fileId))]
        .filter((fileId) => !names.has(fileId))
        .map((fileId) =>
          api(`files/${encodeURIComponent(fileId)}`)
            .then(({ file }) => names.set(fileId, file.name))
            .catch(() => names.set(fileId, "")),
        ),
    );
    if (stopped) return;
    if (batch.failures.length === 0) {
      failures.replaceChildren(h("p", { class: "empty", text: batch.complete ? "No item failed." : "No item has failed so far." }));
    } else {
      failures.replaceChildren(
        h(
          "table",
          { id: "failures-table" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "File" }), h("th", { scope: "col", text: "Transformation" }), h("th", { scope: "col", text: "Reason" }))),
          h(
            "tbody",
            {},
            batch.failures.map((f) =>
              h(
                "tr",
                { "data-file-id": f.fileId },
                h("td", {}, h("a", { href: `#/file/${encodeURIComponent(f.fileId)}`, text: names.get(f.fileId) || f.fileId })),
                h("td", { class: "mono", text: f.transformation }),
                h("td", { text: f.reason }),
              ),
            ),
          ),
        ),
      );
    }
    const p = batch.failuresPagination;
    pager.hidden = p.totalPages <= 1;
    pager.replaceChildren(
      h("button", { type: "button", class: "quiet", disabled: p.page <= 1, onclick: () => { page -= 1; poll(); }, text: "Previous page" }),
      h("span", { text: `Page ${p.page} of ${Math.max(p.totalPages, 1)} · ${p.totalCount} failed` }),
      h("button", { type: "button", class: "quiet", disabled: p.page >= p.totalPages, onclick: () => { page += 1; poll(); }, text: "Next page" }),
    );
    clearTimeout(timer);
    if (!batch.complete) timer = setTimeout(() => poll().catch((e) => announce(e.message)), 1000);
  }
  await poll();
}

// ---------------------------------------------------------------------------------------------------------
// Start

async function start() {
  $("#sign-in").addEventListener("submit", async (e) => {
    e.preventDefault();
    const error = $("#sign-in-error");
    error.textContent = "";
    const key = $("#key").value.trim();
    try {
      await signIn(key);
    } catch (failure) {
      error.textContent = failure.status === 401 ? "This key is not valid." : failure.message;
      return;
    }
    showApp();
    if (!location.hash || location.hash === "#/") history.replaceState(null, "", "#/files");
    await route();
    $("#main").focus();
  });
  $("#sign-out").addEventListener("click", () => signOut());
  // The skip link moves the focus without changing the view (its hash is not a route).
  $(".skip").addEventListener("click", (e) => {
    e.preventDefault();
    $("#main").focus();
  });
  window.addEventListener("hashchange", () => {
    if (location.hash.startsWith("#/")) route().then(() => $("#main").focus({ preventScroll: true }));
  });
  const key = sessionStorage.getItem(KEY_ITEM);
  if (key) {
    try {
      await signIn(key);
      showApp();
      return route();
    } catch {
      sessionStorage.removeItem(KEY_ITEM);
    }
  }
  showSignIn();
}

start();
