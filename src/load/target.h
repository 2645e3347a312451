// The target of a load run: where to send (URL), what to send (the OpenAI request body of one work item) and
// how (headers). Pure: the HTTP client in load_runner sends what these build.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace perfhound::load {

// http[s]://host[:port][/base]. The base path is what the endpoint path is appended to: "http://h:8000" and
// "http://h:8000/v1" both give "/v1/chat/completions"; "https://api.example.com/openai/v1" gives
// "/openai/v1/chat/completions".
struct TargetUrl {
  bool tls = false;
  std::string host;       // name or address; IPv6 literals without the brackets
  std::string port;       // "80" / "443" when the URL gives none
  std::string base_path;  // without a trailing "/v1" and without a trailing '/': "" or "/openai"
  std::string text;       // the URL as given
};

// Errors quote the URL: a scheme other than http/https, an empty host, a port outside 1..65535, a query.
core::Result<TargetUrl> parse_target_url(std::string_view url);
// A URL or path without its trailing '/'s and then one trailing "/v1" (the API paths add it again):
// "http://h/openai/v1/" -> "http://h/openai". base_path is the URL's path so stripped.
std::string_view without_api_suffix(std::string_view url_or_path);

enum class ApiEndpoint { kChat, kCompletions };
core::Result<ApiEndpoint> parse_api_endpoint(std::string_view name);  // "chat" or "completions"
std::string_view api_endpoint_name(ApiEndpoint endpoint);
// "/v1/chat/completions" or "/v1/completions" under the URL's base path.
std::string endpoint_path(const TargetUrl& url, ApiEndpoint endpoint);
std::string models_path(const TargetUrl& url);

struct RequestOptions {
  ApiEndpoint endpoint = ApiEndpoint::kChat;
  std::string model;
  bool include_usage = true;       // stream_options.include_usage (OpenAI, vLLM, SGLang)
  bool ignore_eos = false;         // vLLM / SGLang extension: generate exactly max_tokens
  bool emit_timestamps = false;    // perfhound serve extension: "perfhound_emit_ts" in every chunk
  std::string max_tokens_field = "max_tokens";  // chat may need "max_completion_tokens" (OpenAI's newer models)
  nlohmann::json extra_body = nlohmann::json::object();  // merged last: {"temperature": 0} etc.
};

// The streaming request body for one prompt: chat {"model", "messages": [{"role": "user", "content": prompt}],
// "max_tokens", "stream": true, ...} or completions {"model", "prompt": prompt or the token ids, ...}. Token
// ids go to completions as "prompt": [ids] (a chat endpoint takes text only: ids are an error upstream).
std::string build_request_body(const RequestOptions& options, std::string_view prompt,
                               const std::vector<std::int32_t>& prompt_token_ids, std::int64_t max_tokens);

// "Name: value" from --header; errors quote the text. The name must be an HTTP token and not one the client
// sets itself (Host, Content-Length, Transfer-Encoding, Connection).
core::Result<std::pair<std::string, std::string>> parse_header(std::string_view text);

// The first model's id in a GET /v1/models body; errors say what the body lacked.
core::Result<std::string> first_model_id(std::string_view models_body);

}  // namespace perfhound::load
