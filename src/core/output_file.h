// A file a command will write, checked before it measures anything: a run of minutes must not end in "cannot
// write", and a folder given where a file belongs must be said, not deleted or written over.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace perfhound::core {

// Ok when `path` names a file that can be made (or replaced: written beside and renamed over) in an existing,
// writable folder. The error names the
// flag: "-o: 'runs' is a folder: give a file in it, e.g. 'runs/trace.json'", "-o: no folder 'x'",
// "-o: cannot write in '/ro': Permission denied", "-o: give a file name, not ''".
Status check_output_file(std::string_view flag, const std::string& path, std::string_view example_name = "out.json");
// The part of it the name alone decides: not empty, not a folder ("runs", "runs/"). For a flag checked as it is
// read, before the command has made the folder the file goes in.
Status check_output_name(std::string_view flag, const std::string& path, std::string_view example_name = "out.json");

}  // namespace perfhound::core
