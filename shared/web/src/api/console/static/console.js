// The console's enhancements (every page works without them): the upload's progress,
// a job's progress without a reload, and the copy buttons. No third-party code.
"use strict";
(function () {
  // Upload with progress: the same form, posted by XMLHttpRequest so the bytes sent show.
  document.querySelectorAll("form[data-upload]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.FormData || !window.XMLHttpRequest) return;
      ev.preventDefault();
      var bar = form.querySelector("progress");
      var status = form.querySelector("[data-upload-status]");
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable && bar) {
          bar.max = e.total;
          bar.value = e.loaded;
          bar.hidden = false;
        }
        if (status) status.textContent = "Uploading: " + Math.round((100 * e.loaded) / Math.max(e.total, 1)) + " %";
      });
      xhr.addEventListener("load", function () {
        // The answer is the page to show (the ad's, or the form with its errors).
        if (xhr.responseURL && xhr.responseURL !== form.action && xhr.status < 400) {
          window.location.assign(xhr.responseURL);
        } else {
          document.open();
          document.write(xhr.responseText);
          document.close();
        }
      });
      xhr.addEventListener("error", function () {
        if (status) status.textContent = "The upload failed: check the connection and try again.";
      });
      xhr.send(new FormData(form));
    });
  });
  // A job's progress: the element polls its status URL and reloads the page when done.
  document.querySelectorAll("[data-poll]").forEach(function (el) {
    var url = el.getAttribute("data-poll");
    var tick = function () {
      fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (s) {
          // Done: the page again, as the server renders it now (the preview, or why not).
          if (s.done) { window.location.reload(); return; }
          var text = el.querySelector("[data-poll-text]");
          if (text && s.words) text.textContent = s.words;
          var bar = el.querySelector("progress");
          if (bar && typeof s.progress === "number") bar.value = s.progress;
          setTimeout(tick, 1000);
        })
        .catch(function () { setTimeout(tick, 3000); });
    };
    setTimeout(tick, 1000);
  });
  // A refused form: focus moves to its list of problems, and each problem's link moves
  // focus to its field (a fragment link alone only scrolls).
  var problems = document.getElementById("problems");
  if (problems) {
    if (document.activeElement !== problems) problems.focus();
    problems.querySelectorAll("a[href^='#']").forEach(function (a) {
      a.addEventListener("click", function (ev) {
        var field = document.getElementById(a.getAttribute("href").slice(1));
        if (!field) return;
        ev.preventDefault();
        field.focus();
        field.scrollIntoView({ block: "center" });
      });
    });
  }
  // Copy buttons: the text of the element they name.
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function () {
      var el = document.getElementById(b.getAttribute("data-copy"));
      if (!el || !navigator.clipboard) return;
      navigator.clipboard.writeText(el.textContent.trim()).then(function () {
        b.textContent = "Copied";
      });
    });
  });
  // Select all goals of a bulk edit.
  document.querySelectorAll("input[data-select-all]").forEach(function (all) {
    all.hidden = false;
    all.addEventListener("change", function () {
      document.querySelectorAll("input[name=goal]").forEach(function (c) { c.checked = all.checked; });
    });
  });
})();
