/* reval report pages: draws the charts (Chart.js) from the JSON each <figure> carries,
 * and makes tables filterable and sortable. No request leaves the page. */
(function () {
  "use strict";

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  function palette() {
    return [1, 2, 3, 4, 5, 6, 7].map(function (i) { return css("--c" + i); });
  }

  function fmt(value, digits) {
    return value === null || value === undefined ? "–" : Number(value).toFixed(digits);
  }

  /* Whiskers for the 95% interval of each bar: datasets carry `low` and `high`. */
  var intervals = {
    id: "revalIntervals",
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      chart.data.datasets.forEach(function (ds, i) {
        var meta = chart.getDatasetMeta(i);
        if (!ds.low || meta.hidden) { return; }
        var scale = chart.scales[meta.yAxisID];
        ctx.save();
        ctx.strokeStyle = css("--fg");
        ctx.lineWidth = 1.5;
        meta.data.forEach(function (bar, j) {
          if (ds.low[j] === null || ds.low[j] === undefined) { return; }
          var top = scale.getPixelForValue(ds.high[j]);
          var bottom = scale.getPixelForValue(ds.low[j]);
          var half = Math.min(6, bar.width / 4);
          ctx.beginPath();
          ctx.moveTo(bar.x, top); ctx.lineTo(bar.x, bottom);
          ctx.moveTo(bar.x - half, top); ctx.lineTo(bar.x + half, top);
          ctx.moveTo(bar.x - half, bottom); ctx.lineTo(bar.x + half, bottom);
          ctx.stroke();
        });
        ctx.restore();
      });
    }
  };

  function rateTooltip(ctx) {
    var ds = ctx.dataset, j = ctx.dataIndex;
    var text = ds.label + (ds.runId ? " (" + ds.runId + ")" : "") + ": " + fmt(ds.data[j], 3);
    if (ds.low && ds.low[j] !== null) {
      text += " (95% " + fmt(ds.low[j], 3) + "–" + fmt(ds.high[j], 3) + ")";
    }
    if (ds.counts && ds.counts[j]) { text += ", " + ds.counts[j][0] + "/" + ds.counts[j][1]; }
    return text;
  }

  function ratesChart(spec, colors) {
    return {
      type: "bar",
      data: {
        labels: spec.categories,
        datasets: spec.series.map(function (s, i) {
          return {
            label: s.label, data: s.values, low: s.low, high: s.high, counts: s.counts,
            backgroundColor: colors[i % colors.length], borderColor: colors[i % colors.length]
          };
        })
      },
      options: {
        scales: {
          y: { min: 0, max: 1, title: { display: true, text: "hit rate (95% interval)" } },
          x: { title: { display: true, text: spec.axis } }
        },
        plugins: { tooltip: { callbacks: { label: rateTooltip } } }
      },
      plugins: [intervals]
    };
  }

  function ecdfChart(spec, colors) {
    var n = spec.values.length;
    var points = spec.values.map(function (v, i) { return { x: v, y: (i + 1) / n }; });
    var marks = Object.keys(spec.marks).map(function (name, i) {
      var x = spec.marks[name];
      return {
        label: name + " " + fmt(x, 1) + " ms", data: [{ x: x, y: 0 }, { x: x, y: 1 }],
        borderColor: colors[(i + 1) % colors.length], backgroundColor: colors[(i + 1) % colors.length],
        borderDash: [6, 4], borderWidth: 2,
        pointRadius: 0, showLine: true, pointStyle: "line"
      };
    });
    return {
      type: "scatter",
      data: {
        datasets: [{
          label: "share of questions answered within", data: points, showLine: true,
          stepped: true, borderColor: colors[0], backgroundColor: colors[0], pointRadius: 0,
          borderWidth: 2, pointStyle: "line"
        }].concat(marks)
      },
      options: {
        interaction: { mode: "nearest", intersect: false, axis: "x" },
        scales: {
          x: { type: "linear", min: 0, title: { display: true, text: "latency (ms)" } },
          y: { min: 0, max: 1, title: { display: true, text: "share of answered questions" } }
        },
        plugins: {
          /* Legend swatches are line segments in each line's colour, not hatched boxes. */
          legend: { labels: { usePointStyle: true, pointStyleWidth: 28 } },
          tooltip: {
            callbacks: {
              label: function (ctx) {
                if (ctx.datasetIndex > 0) { return ctx.dataset.label; }
                return fmt(ctx.parsed.x, 1) + " ms: " + fmt(ctx.parsed.y * 100, 1) + "% of questions";
              }
            }
          }
        }
      }
    };
  }

  function groupedChart(spec, colors) {
    /* Many runs side by side per group: one dataset per run. */
    return {
      type: "bar",
      data: {
        labels: spec.categories,
        datasets: spec.series.map(function (s, i) {
          return {
            label: s.label, data: s.values, low: s.low, high: s.high, counts: s.counts,
            runId: s.run_id, backgroundColor: colors[i % colors.length]
          };
        })
      },
      options: {
        scales: {
          y: { min: 0, max: 1, title: { display: true, text: spec.metric_label + " (95% interval)" } },
          x: { title: { display: true, text: spec.axis } }
        },
        plugins: { tooltip: { callbacks: { label: rateTooltip } } }
      },
      plugins: [intervals]
    };
  }

  function historyChart(spec, colors) {
    /* Rates over time with interval bands; point shape marks the verdict. */
    var datasets = [];
    var v = spec.variants || [];
    /* One band per run of consecutive points of one variant: a band never spans a change
       of variant (the values outside the stretch are null, which the filler leaves out). */
    var stretches = [];
    v.forEach(function (key, j) {
      if (j === 0 || key !== v[j - 1]) { stretches.push([j, j]); }
      else { stretches[stretches.length - 1][1] = j; }
    });
    if (!stretches.length) { stretches.push([0, spec.labels.length - 1]); }
    function within(values, stretch) {
      return values.map(function (x, j) { return j >= stretch[0] && j <= stretch[1] ? x : null; });
    }
    spec.series.forEach(function (s, i) {
      var color = colors[i % colors.length];
      var band = color + "33";
      stretches.forEach(function (stretch) {
        datasets.push({ label: s.label + " 95% low", data: within(s.low, stretch), borderWidth: 0,
          pointRadius: 0, fill: false, band: true, backgroundColor: band, spanGaps: false });
        datasets.push({ label: s.label + " 95% high", data: within(s.high, stretch), borderWidth: 0,
          pointRadius: 0, fill: "-1", band: true, backgroundColor: band, spanGaps: false });
      });
      datasets.push({
        label: s.label, data: s.values, borderColor: color, backgroundColor: color,
        pointStyle: spec.point_styles, pointRadius: spec.point_sizes, borderWidth: 2,
        counts: s.counts, low: null, meta: spec.meta, spanGaps: true,
        segment: { borderColor: function (ctx) {
          /* No line between runs of different variants. */
          return v[ctx.p0DataIndex] !== v[ctx.p1DataIndex] ? "rgba(0,0,0,0)" : undefined;
        } }
      });
    });
    return {
      type: "line",
      data: { labels: spec.labels, datasets: datasets },
      options: {
        interaction: { mode: "index", intersect: false },
        scales: {
          y: { min: 0, max: 1, title: { display: true, text: "hit rate (95% band)" } },
          x: { title: { display: true, text: "run: variant and start (oldest to newest)" },
               ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 12 } }
        },
        plugins: {
          legend: { labels: { filter: function (item, data) {
            return !data.datasets[item.datasetIndex].band;
          } } },
          tooltip: {
            filter: function (item) { return !item.dataset.band; },
            callbacks: {
              title: function (items) { return spec.meta[items[0].dataIndex]; },
              label: function (ctx) {
                var ds = ctx.dataset, j = ctx.dataIndex;
                var text = ds.label + ": " + fmt(ds.data[j], 3);
                if (ds.counts && ds.counts[j]) { text += ", " + ds.counts[j][0] + "/" + ds.counts[j][1]; }
                return text;
              }
            }
          }
        }
      }
    };
  }

  var builders = { rates: ratesChart, ecdf: ecdfChart, grouped: groupedChart, history: historyChart };

  function theme() {
    Chart.defaults.color = css("--fg");
    Chart.defaults.borderColor = css("--grid");
    Chart.defaults.font.family = css("--font");
    Chart.defaults.animation = false;
    Chart.defaults.maintainAspectRatio = false;
  }

  function drawAll() {
    theme();
    var colors = palette();
    document.querySelectorAll("figure[data-chart] canvas").forEach(function (canvas) {
      var old = Chart.getChart(canvas);
      if (old) { old.destroy(); }
      var spec = JSON.parse(canvas.parentElement.querySelector("script").textContent);
      new Chart(canvas, builders[spec.kind](spec, colors));
    });
  }

  /* --- tables ------------------------------------------------------------------------ */

  function setupTable(box) {
    var table = box.querySelector("table");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var shown = box.querySelector(".shown");
    var controls = box.querySelectorAll("[data-filter]");

    function apply() {
      var visible = 0;
      rows.forEach(function (row) {
        var ok = true;
        controls.forEach(function (c) {
          var want = c.value.trim().toLowerCase();
          if (!want) { return; }
          var key = c.getAttribute("data-filter");
          var have = key === "text" ? row.textContent.toLowerCase() : (row.getAttribute("data-" + key) || "");
          if (key === "text" ? have.indexOf(want) < 0 : have.toLowerCase() !== want) { ok = false; }
        });
        row.hidden = !ok;
        if (ok) { visible += 1; }
      });
      if (shown) { shown.textContent = visible + " of " + rows.length; }
    }
    controls.forEach(function (c) { c.addEventListener("input", apply); });
    var all = box.querySelector("[data-show-all]");
    if (all) {
      all.addEventListener("click", function () {
        var on = box.classList.toggle("show-all");
        all.setAttribute("aria-pressed", on ? "true" : "false");
        all.textContent = on ? "scroll inside the table" : "show all rows";
      });
    }

    table.querySelectorAll("th[data-sort]").forEach(function (th, _i) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortBy(th); } });
    });

    function sortBy(th) {
      var col = Array.prototype.indexOf.call(th.parentElement.children, th);
      var numeric = th.getAttribute("data-sort") === "number";
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      table.querySelectorAll("th[aria-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      var key = function (row) {
        var cell = row.cells[col];
        var v = cell.getAttribute("data-value");
        if (v === null) { v = cell.textContent.trim(); }
        if (!numeric) { return v.toLowerCase(); }
        var n = parseFloat(v);
        return isNaN(n) ? Infinity : n;
      };
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        return x < y ? -dir : x > y ? dir : 0;
      });
      var frag = document.createDocumentFragment();
      rows.forEach(function (r) { frag.appendChild(r); });
      body.appendChild(frag);
    }
    apply();
  }

  function setupCompareSelection() {
    var form = document.querySelector("form.compare-pick");
    if (!form) { return; }
    var button = form.querySelector("button");
    var update = function () {
      var n = form.querySelectorAll("input[name=run]:checked").length;
      button.disabled = n < 2;
      button.textContent = n < 2 ? "pick two or more runs to compare" : "compare " + n + " runs";
    };
    form.addEventListener("change", update);
    update();
  }

  document.addEventListener("DOMContentLoaded", function () {
    drawAll();
    document.querySelectorAll(".table-box").forEach(setupTable);
    setupCompareSelection();
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", drawAll);
    window.addEventListener("beforeprint", function () {
      Object.values(Chart.instances).forEach(function (c) { c.resize(); });
    });
    document.documentElement.setAttribute("data-ready", "1");
  });
})();
