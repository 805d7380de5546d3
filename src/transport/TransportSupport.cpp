// Shared helpers of the transports.
#include "transport/TransportSupport.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "ecluse/Error.hpp"

namespace ecluse {

std::chrono::seconds peer_timeout() {
  const char* env = std::getenv("ECLUSE_TIMEOUT");
  const long seconds = env ? std::strtol(env, nullptr, 10) : 0;
  // At most 30 days: deadlines are computed as now + timeout and must not overflow the clock.
  constexpr long kLongest = 30L * 24 * 3600;
  return std::chrono::seconds(seconds > 0 ? std::min(seconds, kLongest) : 600);
}

void copy_block(void* to, const void* from, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t{64} << 20;
  auto* out = static_cast<char*>(to);
  const auto* in = static_cast<const char*>(from);
  for (std::size_t done = 0; done < bytes; done += kPiece) {
    std::memcpy(out + done, in + done, std::min(kPiece, bytes - done));
  }
}

void throw_too_big(const BlockData& block, std::size_t need, std::size_t share, std::size_t held,
                   const std::string& memory) {
  const std::string what =
      "block " + std::to_string(block.block) + " of variable '" + block.variable->name + "'";
  throw Error(ECLUSE_ALLOCATION_ERROR,
              held == 0 ? what + " needs " + std::to_string(need) + " bytes of " + memory +
                              " but a client may hold at most " + std::to_string(share) +
                              " bytes; raise <buffer size> in the configuration."
                        : "iteration " + std::to_string(block.iteration) + " needs " +
                              std::to_string(need) + " bytes of " + memory + " with " + what +
                              " but a client may hold at most " + std::to_string(share) +
                              " bytes and the server frees an iteration only once it ends; raise "
                              "<buffer size> in the configuration.");
}

void throw_never_fits(const Variable& variable, std::size_t need, std::size_t share,
                      const std::string& memory) {
  throw Error(ECLUSE_ALLOCATION_ERROR,
              "variable '" + variable.name + "' has blocks of " + std::to_string(need) +
                  " bytes of " + memory + " but a client may hold at most " +
                  std::to_string(share) +
                  " bytes: no write of it could ever be handed over; raise <buffer size> in the "
                  "configuration.");
}

std::string store_failure_message(const std::string& server, const std::string& first,
                                  std::uint32_t failures) {
  return "the " + server + " could not store " + first + " (" + std::to_string(failures) +
         " iteration(s) not stored so far; see store_errors in the run report).";
}

void throw_not_allocated(const Variable& variable, int block) {
  throw Error(ECLUSE_BLOCK_NOT_FOUND, "commit of block " + std::to_string(block) +
                                          " of variable '" + variable.name +
                                          "': nothing was allocated; call alloc first.");
}

void log_skipped(Log& log, const BlockData& block, std::uint64_t skipped, const std::string& why) {
  log.warning(why + ": write of variable '" + block.variable->name + "' at iteration " +
              std::to_string(block.iteration) + " skipped (policy skip, " +
              std::to_string(skipped) + " skipped so far)");
}

}  // namespace ecluse
