// A whole file as text, for the commands that parse their inputs in memory (JSON documents, claim files).
#pragma once

#include <string>

#include "core/result.h"

namespace perfhound::core {

// The file's bytes; the error is "cannot open '<path>': no such file or not readable", or "'<path>' is a folder,
// not a file".
Result<std::string> read_text_file(const std::string& path);

}  // namespace perfhound::core
