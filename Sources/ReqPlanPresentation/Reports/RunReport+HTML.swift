import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

extension RunReport {
    /// The run as one self-contained HTML page (`--report html:PATH`): what ran, how it ended, the waterfall of
    /// its requests on one time axis, the plan's graph coloured by the state each step ended in, and each
    /// step (failed ones first, a filter by state) with its request, what came back and why it failed. The
    /// styles, the script and the pictures are inline: opened from disk, the page asks the network for
    /// nothing. Every value is the report's, so redacted as in every other output.
    public func htmlText() -> String {
        var html = HTMLPage(title: "reqplan · \(planLabel)")
        html.body += page.section()
        return html.text
    }

    /// One exchange (a try, a poll or a redirect hop) from its HAR entry: the request and the response, their
    /// headers and the start of their bodies (JSON indented).
    static func exchangeHTML(_ entry: Value, bodyRoom: Int) -> String {
        func text(_ value: Value?) -> String {
            if case .string(let text)? = value { return text }
            if case .int(let number)? = value { return String(number) }
            if case .double(let number)? = value { return "\((number * 10).rounded() / 10) ms" }
            return ""
        }
        func headers(_ value: Value?) -> String {
            guard case .list(let list)? = value, !list.isEmpty else { return "" }
            return "<table class=\"headers\">"
                + list.map {
                    "<tr><th>\(HTMLPage.escape(text($0["name"])))</th><td>\(HTMLPage.escape(text($0["value"])))</td></tr>"
                }
                .joined() + "</table>"
        }
        func body(_ value: String) -> String {
            guard !value.isEmpty else { return "" }
            let cut = value.count > bodyRoom ? String(value.prefix(bodyRoom)) + "…" : value
            return "<pre>\(HTMLPage.escape(HTMLPage.pretty(cut)))</pre>"
        }
        let request = entry["request"]
        let response = entry["response"]
        var out = "<div class=\"exchange\"><h4>try \(text(entry["_attempt"])): "
        out += "\(HTMLPage.escape(text(request?["method"]))) \(HTMLPage.escape(text(request?["url"])))"
        let status = text(response?["status"])
        out += status == "0" ? " · no response" : " → \(HTMLPage.escape(status))"
        out += " · \(HTMLPage.escape(text(entry["time"])))</h4>"
        if let error = entry["_error"] { out += "<p class=\"error\">\(HTMLPage.escape(text(error)))</p>" }
        out += "<div class=\"sides\"><div><h5>request</h5>" + headers(request?["headers"])
        out += body(text(request?["postData"]?["text"])) + "</div>"
        out += "<div><h5>response</h5>" + headers(response?["headers"])
        out += body(text(response?["content"]?["text"])) + "</div></div></div>"
        return out
    }
}

/// A self-contained HTML page: inline styles and script, nothing fetched.
struct HTMLPage {
    var title: String
    var body = ""

    var text: String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="reqplan \(ReqPlanVersion.current)">
        <title>\(Self.escape(title))</title>
        <style>\(Self.style)</style>
        </head>
        <body>
        \(body)<script>\(Self.script)</script>
        </body>
        </html>

        """
    }

    /// Text content with `&`, `<`, `>` escaped.
    static func escape(_ text: String) -> String { XMLWriter.escapeText(text) }

    /// An attribute value (in double quotes), `"` and line breaks escaped too.
    static func attribute(_ text: String) -> String { XMLWriter.escapeAttribute(text) }

    static func fact(_ name: String, _ value: String) -> String {
        "<dt>\(escape(name))</dt><dd>\(escape(value))</dd>"
    }

    /// An SVG picture without its XML declaration, to sit in a page.
    static func inline(_ svg: String) -> String {
        guard svg.hasPrefix("<?xml"), let end = svg.firstIndex(of: "\n") else { return svg }
        return String(svg[svg.index(after: end)...])
    }

    /// A JSON excerpt indented for reading when it parses whole, else as it is.
    static func pretty(_ excerpt: String) -> String {
        guard let value = try? Value.parseJSON(excerpt) else { return excerpt }
        return value.jsonText(pretty: true)
    }

    static let style = """
        body { font: 14px/1.45 -apple-system, Segoe UI, Helvetica, Arial, sans-serif; margin: 24px; color: #111827; }
        header { display: flex; align-items: center; gap: 12px; }
        h1 { font-size: 22px; margin: 0; } h2 { font-size: 17px; margin: 28px 0 6px; }
        .badge { border-radius: 10px; padding: 2px 10px; font-weight: 600; }
        .badge.succeeded { background: #dcfce7; color: #166534; } .badge.failed { background: #fee2e2; color: #991b1b; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; }
        dt { color: #6b7280; } dd { margin: 0; }
        .hint { color: #6b7280; margin: 0 0 8px; }
        .picture { overflow-x: auto; border: 1px solid #e5e7eb; border-radius: 6px; padding: 6px; }
        .filters button { margin-right: 6px; border: 1px solid #d1d5db; background: #fff; border-radius: 6px; padding: 3px 10px; cursor: pointer; }
        .filters button.active { background: #111827; color: #fff; }
        details.step { border: 1px solid #e5e7eb; border-left-width: 4px; border-radius: 6px; margin: 6px 0; padding: 6px 10px;
          content-visibility: auto; contain-intrinsic-size: auto 36px; }
        details.step.failed { border-left-color: #dc2626; } details.step.succeeded { border-left-color: #16a34a; }
        details.step.skipped { border-left-color: #9ca3af; } details.step.cancelled { border-left-color: #d97706; }
        details.step dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0 0; }
        summary { cursor: pointer; } .state { font-weight: 600; } .kind, .time { color: #6b7280; }
        .request { font-family: ui-monospace, Menlo, Consolas, monospace; }
        pre { margin: 0; white-space: pre-wrap; word-break: break-all; background: #f9fafb; padding: 6px; border-radius: 4px; }
        .target { outline: 3px solid #2563eb; }
        svg [data-step] { cursor: pointer; }
        .exchange { border-top: 1px solid #e5e7eb; margin-top: 8px; padding-top: 4px; }
        .exchange h4 { font-size: 13px; margin: 4px 0; font-family: ui-monospace, Menlo, Consolas, monospace; }
        .exchange h5 { margin: 4px 0; color: #6b7280; }
        .sides { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
        table.headers { border-collapse: collapse; font-size: 12px; margin-bottom: 4px; }
        table.headers th { text-align: left; padding-right: 10px; color: #374151; font-weight: 600; vertical-align: top; }
        table.headers td { font-family: ui-monospace, Menlo, Consolas, monospace; word-break: break-all; }
        .error { color: #991b1b; }
        ul.checks { list-style: none; margin: 0; padding: 0; }
        ul.checks li::before { font-weight: 700; margin-right: 6px; }
        ul.checks li.passed::before { content: "✓"; color: #16a34a; } ul.checks li.failed::before { content: "✗"; color: #991b1b; }
        ul.checks .problem { color: #991b1b; } ul.checks .at { color: #6b7280; font-size: 12px; }
        """

    /// Filters steps by state, and opens the step a bar or a box of the pictures stands for.
    static let script = """
        (function () {
          var buttons = document.querySelectorAll('.filters button');
          buttons.forEach(function (button) {
            button.addEventListener('click', function () {
              var wanted = button.getAttribute('data-filter');
              buttons.forEach(function (other) { other.classList.toggle('active', other === button); });
              document.querySelectorAll('details.step').forEach(function (step) {
                step.style.display = wanted === 'all' || step.getAttribute('data-state') === wanted ? '' : 'none';
              });
            });
          });
          // One listener for every bar and box, however many steps the run has.
          document.addEventListener('click', function (event) {
            var shape = event.target.closest ? event.target.closest('svg [data-step]') : null;
            if (!shape) { return; }
            var section = shape.closest('section.run');
            var step = section && document.getElementById(section.id + '-step-' + shape.getAttribute('data-step'));
            if (!step) { return; }
            step.style.display = '';
            step.open = true;
            document.querySelectorAll('.target').forEach(function (old) { old.classList.remove('target'); });
            step.classList.add('target');
            step.scrollIntoView({ block: 'center' });
          });
        })();
        """
}

extension RunPage {
    /// The run's section of a page: one for a plan, one per file for a suite.
    func section(anchor: String = "run") -> String {
        var out = "<section class=\"run\" id=\"\(HTMLPage.attribute(anchor))\">\n"
        let code = exitCode
        out += "<header><h1>\(HTMLPage.escape(label))</h1>"
        out += "<span class=\"badge \(code == 0 ? "succeeded" : "failed")\">exit \(code)</span></header>\n"
        out += "<dl class=\"facts\">"
        out += HTMLPage.fact("plan", file)
        out += HTMLPage.fact("started", startedAt)
        out += HTMLPage.fact("duration", RunReport.durationText(duration))
        out += HTMLPage.fact(
            "steps",
            StepState.allCases.compactMap { state in
                counts[state].flatMap { $0 > 0 ? "\($0) \(state.rawValue)" : nil }
            }.joined(separator: ", "))
        if !inputs.isEmpty {
            out += HTMLPage.fact("inputs", inputs.map { "\($0.name) = \($0.value)" }.joined(separator: ", "))
        }
        if let machine { out += HTMLPage.fact("machine", machine) }
        out += HTMLPage.fact("reqplan", ReqPlanVersion.current)
        if interrupted { out += HTMLPage.fact("interrupted", "yes: SIGINT or SIGTERM") }
        if timedOut { out += HTMLPage.fact("timed out", "the plan's timeout expired") }
        out += "</dl>\n"
        if !outputErrors.isEmpty {
            out += "<ul class=\"output-errors\">"
            out += outputErrors.map { "<li>\(HTMLPage.escape($0))</li>" }.joined()
            out += "</ul>\n"
        }
        out += "<h2>Waterfall</h2>\n<p class=\"hint\">Each request on one time axis, in lanes that show what ran at "
        out += "once; the critical path outlined, stretches where nothing ran marked on the axis. Hover for timings, "
        out += "click for the step.</p>\n"
        out += "<div class=\"picture\">" + HTMLPage.inline(waterfallSVG()) + "</div>\n"
        out += "<h2>Graph</h2>\n<div class=\"picture\">"
        let steps = allSteps
        if graph.nodes.isEmpty && !steps.isEmpty {
            out += "<p class=\"hint\">The JSON report this page was made from does not keep the plan's graph.</p>"
        } else {
            out += HTMLPage.inline(
                graph.svg(states: Dictionary(steps.map { ($0.step, $0.result.state.rawValue) }) { first, _ in first }))
        }
        out += "</div>\n"
        out += "<h2>Steps</h2>\n<div class=\"filters\">"
        for state in ["all"] + StepState.allCases.map(\.rawValue) {
            out += "<button type=\"button\" data-filter=\"\(state)\">\(state)</button>"
        }
        out += "</div>\n<div class=\"steps\">\n"
        let ordered = steps.filter { $0.result.state == .failed } + steps.filter { $0.result.state != .failed }
        // Each step's element is named in its section, so that a suite's plans can share step ids.
        var indices: [String: Int] = [:]
        for (index, node) in graph.nodes.enumerated() { indices[node.id] = index }
        for step in ordered {
            let waits = indices[step.step].map { graph.nodes[$0].waits.map { graph.nodes[$0.target].id } } ?? []
            out += stepHTML(
                step, anchor: anchor, waits: waits,
                exchanges: exchanges[Self.exchangeKey(step: step.step, item: step.item)] ?? [])
        }
        out += "</div>\n</section>\n"
        return out
    }

    /// One step: how it ended, its request and what came back, and what it waited for.
    private func stepHTML(_ step: ReportStep, anchor: String, waits: [String], exchanges: [Value]) -> String {
        let stepResult = step.result
        let state = stepResult.state.rawValue
        var out =
            "<details class=\"step \(state)\" id=\"\(HTMLPage.attribute(anchor))-step-\(HTMLPage.attribute(step.id))\" data-state=\"\(state)\""
        out += stepResult.state == .failed ? " open>" : ">"
        out += "<summary><span class=\"state\">\(state)</span> <code>\(HTMLPage.escape(step.id))</code>"
        out += " <span class=\"kind\">\(step.isItem ? "item" : step.kind.rawValue)</span>"
        if let method = stepResult.method, let url = stepResult.url {
            out += " <span class=\"request\">\(HTMLPage.escape(method)) \(HTMLPage.escape(url))</span>"
        }
        if let status = stepResult.status { out += " <span class=\"status\">\(status)</span>" }
        if let start = stepResult.start, let end = stepResult.end {
            out += " <span class=\"time\">\(RunReport.durationText((end - start).microseconds))</span>"
        }
        out += "</summary>\n<dl>"
        if let reason = stepResult.reason { out += HTMLPage.fact("reason", reason.message) }
        // The list of expectations says where the failed one is written; a report read back may have no list.
        if let place = step.failedExpectation, step.expectations.isEmpty { out += HTMLPage.fact("expectation", place) }
        if let operation = step.operation { out += HTMLPage.fact("operation", operation) }
        if !step.expectations.isEmpty {
            out += "<dt>expectations</dt><dd><ul class=\"checks\">"
            for expectation in step.expectations {
                let outcome = expectation.passed ? "passed" : "failed"
                out += "<li class=\"\(outcome)\"><code>\(HTMLPage.escape(expectation.text))</code>"
                if let at = expectation.at { out += " <span class=\"at\">\(HTMLPage.escape(at))</span>" }
                if !expectation.problems.isEmpty {
                    out +=
                        "<br><span class=\"problem\">\(HTMLPage.escape(expectation.problems.joined(separator: "; ")))</span>"
                }
                out += "</li>"
            }
            out += "</ul></dd>"
        }
        if let excerpt = stepResult.responseExcerpt {
            out += "<dt>response</dt><dd><pre>\(HTMLPage.escape(HTMLPage.pretty(excerpt)))</pre></dd>"
        }
        if !waits.isEmpty {
            out += "<dt>waited for</dt><dd>"
            out += waits.map {
                "<a href=\"#\(HTMLPage.attribute(anchor))-step-\(HTMLPage.attribute($0))\">\(HTMLPage.escape($0))</a>"
            }
            .joined(separator: ", ")
            out += "</dd>"
        }
        if !stepResult.attempts.isEmpty {
            out += "<dt>tries</dt><dd><ol>"
            for attempt in stepResult.attempts {
                var line = attempt.poll.map { "poll \($0): " } ?? ""
                line += attempt.status.map { "status \($0)" } ?? "no response"
                line += " in \(RunReport.durationText(attempt.duration.microseconds))"
                if let error = attempt.error { line += ": " + error }
                if let delay = attempt.retryDelay {
                    line += "; next after \(RunReport.durationText(delay.microseconds))"
                }
                out += "<li>\(HTMLPage.escape(line))</li>"
            }
            out += "</ol></dd>"
        }
        out += "</dl>"
        // The start of each body: what explains a failure whole, a glimpse otherwise (a 2,000-step run's page
        // stays under 5 MB: BENCHMARKS.md).
        let room = stepResult.state == .failed ? 4096 : 512
        for entry in exchanges { out += RunReport.exchangeHTML(entry, bodyRoom: room) }
        out += "</details>\n"
        return out
    }
}
