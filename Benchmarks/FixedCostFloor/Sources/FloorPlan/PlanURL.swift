import CYaml
import Foundation
import Yams

/// The URL of the step `one` of the plan at `path`, read with `Yams.load` (Yams' composer, constructor and
/// resolver); nil when the file or the step is not there.
public func planURL(_ path: String) -> String? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let plan = (try? Yams.load(yaml: text)) as? [String: Any],
        let steps = plan["steps"] as? [String: Any],
        let one = steps["one"] as? [String: Any],
        let request = one["request"] as? [String: Any]
    else { return nil }
    return request["url"] as? String
}

/// The value of the plan's first `url` key, read from libyaml's events (as reqplan's own composer reads a plan,
/// with neither Yams' composer nor its resolver); nil when the file or the key is not there.
public func planURLFromEvents(_ path: String) -> String? {
    guard var text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    return text.withUTF8 { bytes -> String? in
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
        var event = yaml_event_t()
        var afterURLKey = false
        while yaml_parser_parse(&parser, &event) == 1 {
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { return nil }
            guard event.type == YAML_SCALAR_EVENT else { continue }
            let scalar = event.data.scalar
            let value = String(
                decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            if afterURLKey { return value }
            afterURLKey = value == "url"
        }
        return nil
    }
}
