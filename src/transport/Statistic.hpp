// The counters of the transports and servers, typed: each key has its name (as the C API and the
// report show it) and how values of several ranks combine (summed, or the maximum or minimum).
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ecluse {

enum class Statistic {
  DcWindowBytes,
  DcBufferWaits,
  DcBufferWaitSeconds,
  DcSentBlocks,
  DcSentBytes,
  DcSkippedBlocks,
  DnWindowBytes,
  DnCreditBytes,
  DnLowestCreditBytes,
  DnCreditWaits,
  DnCreditWaitSeconds,
  DnSentBlocks,
  DnSentBytes,
  DnSkippedBlocks,
  DnReceiveMemoryBytes,
  DnPeakHeldBytes,
  DnReceivedBlocks,
  DnReceivedBytes,
  DnCreditMessages,
  ScheduleTurns,
  ScheduleWaitSeconds,
  ScheduleLongestWaitSeconds,
  ClientDroppedAllocations,
  InsituFailures,
  ClientRefusedWrites,
  DcQueueWaits,
  DcQueueWaitSeconds,
  DnBatchedBlocks,
  DnBatches,
  ClientUnwantedWrites,
  InsituUnboundSignals,
};

/** Counters add up over ranks; peaks, windows and memories are maxima, lowest values minima. */
enum class Combine { Sum, Max, Min };

struct StatisticInfo {
  Statistic key;
  std::string_view name;
  Combine combine;
};

inline constexpr std::array<StatisticInfo, 31> kStatistics = {{
    {Statistic::DcWindowBytes, "dc.window_bytes", Combine::Max},
    {Statistic::DcBufferWaits, "dc.buffer_waits", Combine::Sum},
    {Statistic::DcBufferWaitSeconds, "dc.buffer_wait_seconds", Combine::Sum},
    {Statistic::DcSentBlocks, "dc.sent_blocks", Combine::Sum},
    {Statistic::DcSentBytes, "dc.sent_bytes", Combine::Sum},
    {Statistic::DcSkippedBlocks, "dc.skipped_blocks", Combine::Sum},
    {Statistic::DnWindowBytes, "dn.window_bytes", Combine::Max},
    {Statistic::DnCreditBytes, "dn.credit_bytes", Combine::Sum},
    {Statistic::DnLowestCreditBytes, "dn.lowest_credit_bytes", Combine::Min},
    {Statistic::DnCreditWaits, "dn.credit_waits", Combine::Sum},
    {Statistic::DnCreditWaitSeconds, "dn.credit_wait_seconds", Combine::Sum},
    {Statistic::DnSentBlocks, "dn.sent_blocks", Combine::Sum},
    {Statistic::DnSentBytes, "dn.sent_bytes", Combine::Sum},
    {Statistic::DnSkippedBlocks, "dn.skipped_blocks", Combine::Sum},
    {Statistic::DnReceiveMemoryBytes, "dn.receive_memory_bytes", Combine::Max},
    {Statistic::DnPeakHeldBytes, "dn.peak_held_bytes", Combine::Max},
    {Statistic::DnReceivedBlocks, "dn.received_blocks", Combine::Sum},
    {Statistic::DnReceivedBytes, "dn.received_bytes", Combine::Sum},
    {Statistic::DnCreditMessages, "dn.credit_messages", Combine::Sum},
    {Statistic::ScheduleTurns, "schedule.turns", Combine::Sum},
    {Statistic::ScheduleWaitSeconds, "schedule.wait_seconds", Combine::Sum},
    {Statistic::ScheduleLongestWaitSeconds, "schedule.longest_wait_seconds", Combine::Max},
    {Statistic::ClientDroppedAllocations, "client.dropped_allocations", Combine::Sum},
    {Statistic::InsituFailures, "insitu.failures", Combine::Sum},
    {Statistic::ClientRefusedWrites, "client.refused_writes", Combine::Sum},
    {Statistic::DcQueueWaits, "dc.queue_waits", Combine::Sum},
    {Statistic::DcQueueWaitSeconds, "dc.queue_wait_seconds", Combine::Sum},
    {Statistic::DnBatchedBlocks, "dn.batched_blocks", Combine::Sum},
    {Statistic::DnBatches, "dn.batches", Combine::Sum},
    {Statistic::ClientUnwantedWrites, "client.unwanted_writes", Combine::Sum},
    {Statistic::InsituUnboundSignals, "insitu.unbound_signals", Combine::Sum},
}};

constexpr const StatisticInfo& info_of(Statistic key) {
  return kStatistics[static_cast<std::size_t>(key)];
}
static_assert(info_of(Statistic::ClientDroppedAllocations).key ==
                  Statistic::ClientDroppedAllocations,
              "kStatistics is in the order of the enum");

/** One counter of one rank. */
struct StatisticValue {
  Statistic key;
  double value;
};

/** The counters of a transport or server (empty in time partitioning). */
using Statistics = std::vector<StatisticValue>;

/** Two ranks' values of `key` made one. */
double combine(Statistic key, double a, double b);

/** The counters by name, as the public API gives them. */
std::map<std::string, double> by_name(const Statistics& statistics);

}  // namespace ecluse
