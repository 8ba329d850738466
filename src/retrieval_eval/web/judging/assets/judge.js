/* reval judging page: one question at a time, with the mouse or the keyboard alike (every
 * key has a visible button, every click a key). Reads the JSON the page carries, saves one
 * question's judgement with a POST to this same viewer, and says before each save what it
 * will record. */
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("judge-data").textContent);
  var questions = data.questions;
  var el = function (id) { return document.getElementById(id); };
  var index = 0;
  var saving = false;
  /* A set that declares a grade scale is judged in grades: each relevant candidate gets
   * one, from the lowest grade that is still relevant up to the scale's top. */
  var scale = data.scale;
  var lowest = scale ? Math.max(data.level, scale[0], 1) : data.level;

  function gradeOf(q, c) {
    var given = q.grades[c.id];
    return typeof given === "number" && given >= lowest ? given : lowest;
  }

  function gradePicker(q, c) {
    var label = document.createElement("label");
    label.className = "grade";
    label.textContent = "grade ";
    var select = document.createElement("select");
    select.setAttribute("aria-label", "grade: " + (c.title || c.id));
    for (var g = lowest; g <= scale[1]; g++) {
      var option = document.createElement("option");
      option.value = String(g);
      option.textContent = String(g);
      select.appendChild(option);
    }
    select.value = String(gradeOf(q, c));
    select.addEventListener("click", function (event) { event.stopPropagation(); });
    select.addEventListener("change", function () {
      q.grades[c.id] = Number(select.value);
      render();
    });
    label.addEventListener("click", function (event) { event.stopPropagation(); });
    label.appendChild(select);
    return label;
  }

  function firstOpen() {
    for (var i = 0; i < questions.length; i++) {
      if (questions[i].state !== "judged") { return i; }
    }
    return 0;
  }

  function progress() {
    var judged = questions.filter(function (q) { return q.state === "judged"; }).length;
    el("j-progress").textContent = "question " + (index + 1) + " of " + questions.length +
      ", judged " + judged + " of " + questions.length;
    el("j-progress").setAttribute("data-judged", String(judged));
  }

  function highlighted(text, snippet) {
    var box = document.createElement("div");
    box.className = "doc";
    var at = snippet ? text.indexOf(snippet) : -1;
    if (at < 0) {
      box.textContent = text || snippet;
      return box;
    }
    box.appendChild(document.createTextNode(text.slice(0, at)));
    var mark = document.createElement("mark");
    mark.textContent = snippet;
    box.appendChild(mark);
    box.appendChild(document.createTextNode(text.slice(at + snippet.length)));
    return box;
  }

  function decision(c) {
    if (c.relevant === true) { return ["relevant", "✔ relevant"]; }
    if (c.relevant === false) { return ["not-relevant", "✘ not relevant"]; }
    return ["unmarked", "○ not marked"];
  }

  function candidateItem(c, n) {
    var li = document.createElement("li");
    var state = decision(c);
    li.setAttribute("data-doc", c.id);
    li.className = state[0];
    var head = document.createElement("div");
    head.className = "cand-head";
    var toggleButton = document.createElement("button");
    toggleButton.type = "button";
    toggleButton.className = "verdict-mark";
    toggleButton.setAttribute("aria-pressed", c.relevant === true ? "true" : "false");
    toggleButton.setAttribute("aria-label", "relevant: " + (c.title || c.id));
    toggleButton.textContent = state[1];
    head.appendChild(toggleButton);
    var key = document.createElement("kbd");
    key.textContent = n <= 9 ? String(n) : "";
    head.appendChild(key);
    var title = document.createElement("b");
    title.textContent = " " + (c.title || c.id) + " ";
    head.appendChild(title);
    var id = document.createElement("span");
    id.className = "mono muted";
    id.textContent = c.id;
    head.appendChild(id);
    if (scale && c.relevant === true) { head.appendChild(gradePicker(questions[index], c)); }
    var found = document.createElement("div");
    found.className = "muted";
    found.textContent = "found by " + Object.keys(c.found_by).map(function (r) {
      return r + " #" + c.found_by[r];
    }).join(", ") || "found by hand";
    li.appendChild(head);
    li.appendChild(found);
    if (c.model) { li.appendChild(modelAdvice(c)); }
    li.appendChild(highlighted(c.text, c.snippet));
    li.addEventListener("click", function () {
      /* Selecting text to read it is not a decision. */
      var selected = window.getSelection ? String(window.getSelection()) : "";
      if (!selected) { toggle(n - 1); }
    });
    return li;
  }

  /* A model's grade and one-line reason for this candidate: advice beside the person's
   * decision, never one (the save records the person as its source). */
  function modelAdvice(c) {
    var box = document.createElement("div");
    box.className = "model-advice muted";
    box.setAttribute("data-grade", String(c.model.grade));
    var verdict = c.model.relevant ? "relevant" : "not relevant";
    box.textContent = "model suggests grade " + c.model.grade + " (" + verdict + ")" +
      (c.model.reason ? ": " + c.model.reason : "") + " · " + c.model.by;
    if (c.relevant !== null && c.source) {
      var by = document.createElement("span");
      by.className = "decided-by";
      by.textContent = " · decided by " + c.source;
      box.appendChild(by);
    }
    return box;
  }

  /* What a save records now, as the server decides it (labelling.judge). */
  function willRecord(q) {
    var relevant = q.candidates.filter(function (c) { return c.relevant === true; });
    var others = q.candidates.length - relevant.length;
    var form = q.form === "UNLABELLED" ? "form not set" : "form " + q.form;
    if (q.nothing_answers) {
      return ["judged", "judged: nothing in the corpus answers it (" + q.candidates.length +
        " candidates not relevant), " + form];
    }
    if (relevant.length) {
      return ["judged", "judged: relevant " + relevant.map(function (c) {
        return scale ? c.id + " (grade " + gradeOf(q, c) + ")" : c.id;
      }).join(", ") +
        (others ? "; the other " + others + " not relevant" : "") + ", " + form];
    }
    return ["needs-review", "needs review: nothing is marked relevant and “nothing answers it” " +
      "is not set. Mark a relevant candidate, or choose “nothing in the corpus answers it”."];
  }

  function render() {
    var q = questions[index];
    progress();
    el("j-id").textContent = q.id;
    el("j-by").textContent = q.judged_by ? "last judged by " + q.judged_by : "";
    el("j-question").textContent = q.question;
    el("j-gist").textContent = q.answer_gist ? "answer: " + q.answer_gist : "";
    el("j-form").textContent = q.form;
    ["MATCH", "GAP"].forEach(function (f) {
      el(f === "MATCH" ? "j-match" : "j-gap").setAttribute("aria-pressed", q.form === f ? "true" : "false");
    });
    el("j-state").textContent = q.state;
    el("j-state").setAttribute("data-state", q.state);
    var s = q.suggestion;
    el("j-suggestion").textContent = s.form ? "suggested " + s.form + " (vocabulary overlap " +
      Number(s.overlap).toFixed(2) + ")" : "";
    el("j-class").value = q.hard_class || "";
    el("j-nothing").textContent = q.nothing_answers ? "nothing in the corpus answers it" : "";
    el("j-nothing-toggle").setAttribute("aria-pressed", q.nothing_answers ? "true" : "false");
    var will = willRecord(q);
    el("j-will").textContent = "Enter or “save and next” will record " + q.id + " as " + will[1];
    el("j-will").setAttribute("data-will", will[0]);
    el("j-prev").disabled = index === 0;
    el("j-next").disabled = index === questions.length - 1;
    var list = el("j-candidates");
    list.textContent = "";
    q.candidates.forEach(function (c, i) { list.appendChild(candidateItem(c, i + 1)); });
    document.documentElement.setAttribute("data-question", q.id);
  }

  function toggle(n) {
    var q = questions[index];
    var c = q.candidates[n];
    if (!c) { return; }
    c.relevant = c.relevant === true ? false : true;
    if (c.relevant) { q.nothing_answers = false; }
    render();
  }

  function nothing() {
    var q = questions[index];
    q.nothing_answers = !q.nothing_answers;
    if (q.nothing_answers) { q.candidates.forEach(function (c) { c.relevant = false; }); }
    render();
  }

  function setForm(form) {
    questions[index].form = form;
    render();
  }

  function move(step) {
    index = Math.min(questions.length - 1, Math.max(0, index + step));
    render();
  }

  function save() {
    if (saving) { return; }
    var q = questions[index];
    q.hard_class = el("j-class").value.trim() || null;
    var body = {
      judge: el("j-judge").value.trim(),
      relevant: q.candidates.filter(function (c) { return c.relevant === true; })
        .map(function (c) { return c.id; }),
      complete: true,
      nothing_answers: q.nothing_answers,
      form: q.form === "UNLABELLED" ? null : q.form,
      hard_class: q.hard_class,
      seen_history: q.history
    };
    if (scale) {
      body.grades = {};
      q.candidates.forEach(function (c) {
        if (c.relevant === true) { body.grades[c.id] = gradeOf(q, c); }
      });
    }
    saving = true;
    var url = "/judge/" + encodeURIComponent(data.key) + "/questions/" + encodeURIComponent(q.id);
    fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (j) { return {ok: r.ok, body: j}; }); })
      .then(function (res) {
        saving = false;
        if (!res.ok) {
          el("j-status").textContent = "not saved: " + res.body.error;
          return;
        }
        q.state = res.body.state;
        q.history += 1;
        q.candidates.forEach(function (c) {
          c.relevant = c.relevant === true;
          c.source = body.judge.indexOf("human:") === 0 ? body.judge : "human:" + body.judge;
          q.grades[c.id] = c.relevant ? (body.grades ? body.grades[c.id] : data.level) : 0;
        });
        q.judged_by = body.judge;
        var note = res.body.concurrent ? " (someone else judged it meanwhile; both are in its history)" : "";
        el("j-status").textContent = "saved " + q.id + ": " + q.state + note;
        var saved = Number(document.documentElement.getAttribute("data-saved") || "0") + 1;
        document.documentElement.setAttribute("data-saved", String(saved));
        move(1);
      })
      .catch(function (e) {
        saving = false;
        el("j-status").textContent = "not saved: " + e;
      });
  }

  document.addEventListener("keydown", function (event) {
    var typing = event.target && (event.target.tagName === "INPUT" || event.target.tagName === "SELECT");
    if (typing) {
      if (event.key === "Enter" || event.key === "Escape") {
        event.target.blur();
        event.preventDefault();
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key;
    if (key >= "1" && key <= "9") { toggle(Number(key) - 1); }
    else if (key === "0" || key === "n") { nothing(); }
    else if (key === "j" || key === "ArrowRight") { move(1); }
    else if (key === "k" || key === "ArrowLeft") { move(-1); }
    else if (key === "m") { setForm("MATCH"); }
    else if (key === "g") { setForm("GAP"); }
    else if (key === "c") { el("j-class").focus(); }
    else if (key === "Enter") { save(); }
    else { return; }
    event.preventDefault();
  });

  el("j-match").addEventListener("click", function () { setForm("MATCH"); });
  el("j-gap").addEventListener("click", function () { setForm("GAP"); });
  el("j-nothing-toggle").addEventListener("click", nothing);
  el("j-save").addEventListener("click", save);
  el("j-class").addEventListener("input", function () {
    questions[index].hard_class = el("j-class").value.trim() || null;
  });
  el("j-prev").addEventListener("click", function () { move(-1); });
  el("j-next").addEventListener("click", function () { move(1); });

  index = firstOpen();
  render();
  document.documentElement.setAttribute("data-judge-ready", "1");
}());
