#include "core/text_file.h"

#include <fstream>
#include <sstream>

namespace perfhound::core {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "': no such file or not readable"};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace perfhound::core
