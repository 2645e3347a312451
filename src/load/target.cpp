#include "load/target.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

namespace perfhound::load {

core::Result<TargetUrl> parse_target_url(std::string_view url) {
  const auto fail = [&](std::string_view what) {
    return core::Error{fmt::format("'{}': {} (use e.g. http://localhost:8000 or https://host/v1)", url, what)};
  };
  TargetUrl t;
  t.text = std::string(url);
  std::string_view rest = url;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    t.tls = true;
    rest.remove_prefix(8);
  } else {
    return fail("the scheme must be http:// or https://");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) return fail("a query or fragment is not allowed");
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) return fail("credentials in the URL are not allowed (use --api-key-env)");
  std::string_view port;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail("unclosed '[' in the host");
    t.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (!after.starts_with(':')) return fail("expected ':port' after the IPv6 address");
      port = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    t.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (t.host.empty()) return fail("no host");
  if (!port.empty() || authority.ends_with(":")) {
    int value = 0;
    const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || ptr != port.data() + port.size() || value < 1 || value > 65535) {
      return fail(fmt::format("port '{}' is not in 1..65535", port));
    }
    t.port = std::string(port);
  } else {
    t.port = t.tls ? "443" : "80";
  }
  t.base_path = std::string(without_api_suffix(path));
  return t;
}

std::string_view without_api_suffix(std::string_view url_or_path) {
  while (url_or_path.ends_with('/')) url_or_path.remove_suffix(1);
  if (url_or_path.ends_with("/v1")) url_or_path.remove_suffix(3);
  return url_or_path;
}

core::Result<ApiEndpoint> parse_api_endpoint(std::string_view name) {
  if (name == "chat") return ApiEndpoint::kChat;
  if (name == "completions") return ApiEndpoint::kCompletions;
  return core::Error{fmt::format("'{}' is not an endpoint (use chat or completions)", name)};
}

std::string_view api_endpoint_name(ApiEndpoint endpoint) {
  return endpoint == ApiEndpoint::kChat ? "chat" : "completions";
}

std::string endpoint_path(const TargetUrl& url, ApiEndpoint endpoint) {
  return url.base_path + (endpoint == ApiEndpoint::kChat ? "/v1/chat/completions" : "/v1/completions");
}

std::string models_path(const TargetUrl& url) { return url.base_path + "/v1/models"; }

std::string build_request_body(const RequestOptions& options, std::string_view prompt,
                               const std::vector<std::int32_t>& prompt_token_ids, std::int64_t max_tokens) {
  nlohmann::json body = nlohmann::json::object();
  body["model"] = options.model;
  if (options.endpoint == ApiEndpoint::kChat) {
    body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", prompt}}});
    body[options.max_tokens_field] = max_tokens;
  } else {
    if (prompt_token_ids.empty()) {
      body["prompt"] = prompt;
    } else {
      body["prompt"] = prompt_token_ids;
    }
    body["max_tokens"] = max_tokens;
  }
  body["stream"] = true;
  if (options.include_usage) body["stream_options"] = {{"include_usage", true}};
  if (options.ignore_eos) body["ignore_eos"] = true;
  if (options.emit_timestamps) body["perfhound_emit_ts"] = true;
  for (const auto& [key, value] : options.extra_body.items()) body[key] = value;
  return body.dump();
}

core::Result<std::pair<std::string, std::string>> parse_header(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return core::Error{fmt::format("'{}' is not 'Name: value'", text)};
  }
  std::string name(text.substr(0, colon));
  const bool token = std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (!token) return core::Error{fmt::format("'{}': the header name '{}' has characters HTTP does not allow", text, name)};
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view reserved : {"host", "content-length", "transfer-encoding", "connection"}) {
    if (lower == reserved) return core::Error{fmt::format("'{}': the client sets {} itself", text, name)};
  }
  std::string_view value = text.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.find_first_of("\r\n") != std::string_view::npos) {
    return core::Error{fmt::format("header '{}': the value holds a line break", name)};
  }
  return std::pair{std::move(name), std::string(value)};
}

core::Result<std::string> first_model_id(std::string_view models_body) {
  const nlohmann::json body = nlohmann::json::parse(models_body, nullptr, false);
  if (body.is_discarded()) return core::Error{"GET /v1/models did not answer JSON"};
  if (!body.is_object() || !body.contains("data") || !body["data"].is_array() || body["data"].empty()) {
    return core::Error{"GET /v1/models listed no models (no non-empty \"data\" array)"};
  }
  const auto& first = body["data"][0];
  if (!first.is_object() || !first.contains("id") || !first["id"].is_string()) {
    return core::Error{"GET /v1/models: the first entry has no string \"id\""};
  }
  return first["id"].get<std::string>();
}

}  // namespace perfhound::load
