// The web view's only script: live updates, action buttons and the on-demand diff.
// Everything the server sends is put into the page as it was rendered (HTML the server
// escaped) or as text (textContent): nothing is interpreted as markup here.
(function () {
  "use strict";
  const content = document.getElementById("content");
  const flash = document.getElementById("flash");
  const dot = document.getElementById("livedot");

  function show(ok, message) {
    flash.textContent = message;
    flash.className = ok ? "ok" : "error";
    flash.hidden = false;
  }

  // Re-read the page's content as the user and swap it in, keeping the diff shown.
  let pending = null;
  async function refresh() {
    pending = null;
    const res = await fetch(location.href, { headers: { "X-Fragment": "content" }, credentials: "same-origin" });
    if (!res.ok && res.status !== 404) return;
    const diff = document.getElementById("diff");
    const kept = diff && !diff.hidden ? diff.textContent : null;
    content.innerHTML = await res.text();
    if (kept !== null) {
      const d = document.getElementById("diff");
      if (d) { d.textContent = kept; d.hidden = false; }
    }
    document.body.dataset.refreshed = String(Date.now());
  }

  const live = document.body.dataset.live;
  if (live && window.EventSource) {
    const es = new EventSource(live);
    es.onopen = () => { dot.classList.add("on"); document.body.dataset.liveOpen = "1"; };
    es.onerror = () => dot.classList.remove("on");
    es.addEventListener("change", () => {
      if (!pending) pending = setTimeout(refresh, 50);
    });
  }

  // Action buttons post as the user; the answer (or the apiserver's refusal) is shown.
  document.addEventListener("submit", async (ev) => {
    const form = ev.target;
    if (!form.hasAttribute("data-action")) return;
    ev.preventDefault();
    const button = form.querySelector("button");
    if (button) button.disabled = true;
    try {
      const res = await fetch(form.action, { method: "POST", body: new FormData(form), credentials: "same-origin" });
      let body = { ok: false, message: res.statusText };
      try { body = await res.json(); } catch (e) { body.message = await res.text().catch(() => res.statusText); }
      show(res.ok && body.ok, body.message);
    } catch (e) {
      show(false, String(e));
    } finally {
      if (button) button.disabled = false;
    }
  });

  // The diff is computed on demand: it compiles the program and dry-runs it as the user.
  document.addEventListener("click", async (ev) => {
    const button = ev.target.closest("[data-diff]");
    if (!button) return;
    const out = document.getElementById("diff");
    out.hidden = false;
    out.textContent = "computing the diff…";
    button.disabled = true;
    try {
      const res = await fetch(button.dataset.diff, { credentials: "same-origin" });
      out.textContent = await res.text();
      out.classList.toggle("failed", !res.ok);
    } catch (e) {
      out.textContent = String(e);
    } finally {
      button.disabled = false;
    }
  });
})();
