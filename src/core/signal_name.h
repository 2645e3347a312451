// The name a shell gives a stop signal ("SIGINT"), for the messages that say why a run ended early.
#pragma once

#include <csignal>
#include <string_view>

namespace perfhound::core {

constexpr std::string_view signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "a signal";
  }
}

}  // namespace perfhound::core
