import ReqPlanSyntax
import ReqPlanTransport

extension ExpressionEvaluator {
    /// What every output shows in place of a secret.
    public static let secretMarker = ShownRequest.secretMarker

    /// `template`'s text as sent, and as every output shows it when that differs (else nil): `***` in
    /// place of each expression that reads a secret (`context.secretFlow`), the values of the other
    /// expressions through the textual net (`context.secretNet`: they may repeat what a server sent), and
    /// the plan's own text as written. One evaluation gives both.
    public static func render(_ template: Template, in context: EvaluationContext) throws(EvaluationError)
        -> (text: String, shown: String?)
    {
        var text = ""
        var shown = ""
        var differs = false
        for part in template.parts {
            switch part {
            case .text(let literal):
                text += literal
                shown += literal
            case .expression(let expression):
                let evaluated = try evaluate(expression, in: context)
                try refuseNonFinite(evaluated, at: expression.range)
                let value = evaluated.interpolated
                let seen = shownText(of: expression, value, in: context)
                if seen != value { differs = true }
                text += value
                shown += seen
            }
        }
        return (text, differs ? shown : nil)
    }

    /// `template`'s value as sent, and as every output shows it when that differs (else nil): as
    /// `render(_:in:)` does for text, with `"***"` for a whole value that reads a secret.
    public static func render(_ template: ValueTemplate, in context: EvaluationContext) throws(EvaluationError)
        -> (value: Value, shown: Value?)
    {
        switch template {
        case .literal(let value, let range):
            try refuseNonFinite(value, at: range)
            return (value, nil)
        case .template(let inner):
            if let expression = inner.singleExpression {
                let value = try evaluate(expression, in: context)
                try refuseNonFinite(value, at: expression.range)
                if context.secretFlow.carriesSecret(expression) { return (value, .string(secretMarker)) }
                let shown = context.secretNet.redact(value)
                return (value, shown == value ? nil : shown)
            }
            let (text, shown) = try render(inner, in: context)
            return (.string(text), shown.map(Value.string))
        case .list(let items, _):
            var values: [Value] = []
            var shown: [Value] = []
            var differs = false
            values.reserveCapacity(items.count)
            for item in items {
                let (value, seen) = try render(item, in: context)
                values.append(value)
                shown.append(seen ?? value)
                if seen != nil { differs = true }
            }
            return (.list(values), differs ? .list(shown) : nil)
        case .object(let entries, _):
            var fields: [Value.Field] = []
            var shown: [Value.Field] = []
            var differs = false
            fields.reserveCapacity(entries.count)
            for entry in entries {
                let (value, seen) = try render(entry.value, in: context)
                fields.append(.init(entry.key.value, value))
                shown.append(.init(entry.key.value, seen ?? value))
                if seen != nil { differs = true }
            }
            return (.object(fields), differs ? .object(shown) : nil)
        }
    }

    /// Refuses a value that holds an infinite or NaN number: what is rendered is sent or written, and neither
    /// JSON nor text can carry one (it used to go out as `null`).
    static func refuseNonFinite(_ value: Value, at range: SourceRange?) throws(EvaluationError) {
        guard let (pointer, number) = value.firstNonFinite else { return }
        let written = number.isNaN ? "`.nan`" : (number < 0 ? "`-.inf`" : "`.inf`")
        throw EvaluationError(
            "the value " + (pointer.isEmpty ? "is " : "holds at `\(pointer)` ") + written
                + ", which cannot be sent: JSON and text have no infinity or NaN", at: range)
    }

    /// How the text of `expression`'s value is shown.
    private static func shownText(of expression: Expression, _ text: String, in context: EvaluationContext) -> String {
        context.secretFlow.carriesSecret(expression) ? secretMarker : context.secretNet.redact(text)
    }
}
