#include "core/text_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace perfhound::core {

Result<std::string> read_text_file(const std::string& path) {
  // A folder opens as a stream on Linux and reads as empty: say what it is instead of "not JSON" or "empty".
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) return Error{"'" + path + "' is a folder, not a file"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "': no such file or not readable"};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace perfhound::core
