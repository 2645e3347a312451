#include "cli/serve_command.h"

#include <fmt/format.h>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/sim_flags.h"
#include "core/output_file.h"
#include "core/units.h"
#include "serve/http_server.h"

namespace perfhound::cli {
namespace {

class ServeCommand final : public Command {
 public:
  std::string_view name() const override { return "serve"; }
  std::string_view summary() const override {
    return "OpenAI-compatible server streaming at the pace of a simulated continuous-batching engine";
  }

  void add_flags(CLI::App& app) override {
    app.add_option("--host", address_, "Address to listen on")->default_val("127.0.0.1");
    app.add_option("--port", port_, "Port to listen on (0: any free port, printed at start)")->default_val(8000);
    sim_.add_to(app, "--");
    app.add_option("--duration", duration_, "Stop after this long of wall time (e.g. 30s); default: until Ctrl-C");
    app.add_option("--port-file", port_file_, "Write the port actually bound to this file (for scripts and tests)");
  }

  core::Result<int> run(const Context& context) override {
    if (port_ < 0 || port_ > 65535) return core::Error{fmt::format("--port: {} is not a TCP port", port_)};
    double duration_s = 0;
    if (!duration_.empty()) {
      PH_ASSIGN_OR_RETURN(const std::int64_t ns, core::parse_duration_ns(duration_).with_context("--duration"));
      duration_s = core::ns_to_seconds(ns);
    }
    // A script waits for this file: one that can never appear must be an error, not a silent hang.
    if (!port_file_.empty()) PH_TRY(core::check_output_file("--port-file", port_file_, "serve.port"));
    PH_ASSIGN_OR_RETURN(SimulatedServer sim, sim_.build());
    sim.config.address = address_;
    sim.config.port = static_cast<std::uint16_t>(port_);
    PH_ASSIGN_OR_RETURN(auto server, serve::HttpServer::create(sim.config, std::move(sim.engine)));
    if (!port_file_.empty()) {
      std::ofstream out(port_file_);
      out << server->port() << "\n";
      out.close();
      if (!out) return core::Error{fmt::format("--port-file: cannot write '{}'", port_file_)};
    }
    *context.err << fmt::format("perfhound serve: http://{}:{} model '{}': {}{}; time scale {}, seed {}\n", address_,
                                server->port(), sim.config.model_name, sim.description,
                                sim.roofs.empty() ? "" : ", " + sim.roofs, sim.config.time_scale, sim_.seed());
    context.err->flush();
    server->run(duration_s);
    return kExitOk;
  }

 private:
  SimFlags sim_;
  std::string address_ = "127.0.0.1";
  int port_ = 8000;
  std::string duration_, port_file_;
};

}  // namespace

std::unique_ptr<Command> make_serve_command() { return std::make_unique<ServeCommand>(); }

}  // namespace perfhound::cli
