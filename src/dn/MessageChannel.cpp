// Point-to-point messages of dedicated nodes.
#include "dn/MessageChannel.hpp"

#include <cstddef>
#include <cstring>

namespace ecluse {

namespace {
constexpr std::uint64_t kUnit = 64 * 1024;
}

MessageChannel::MessageChannel(MPI_Comm comm) : comm_(comm) {
  MPI_Type_contiguous(static_cast<int>(kUnit), MPI_BYTE, &unit_);
  MPI_Type_commit(&unit_);
}

MessageChannel::~MessageChannel() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Type_free(&unit_);
}

void MessageChannel::send_header(const BlockMessage& header, int to, MPI_Request* request) const {
  MPI_Isend(&header, sizeof header, MPI_BYTE, to, kHeaderTag, comm_, request);
}

void MessageChannel::send_batch(const char* packed, const BlockMessage& header, int to,
                                MPI_Request* request) const {
  const auto bytes = static_cast<int>(sizeof header + header.bytes);  // <= sizeof(HeaderSlot)
  MPI_Isend(packed, bytes, MPI_BYTE, to, kHeaderTag, comm_, request);
}

void MessageChannel::receive_header(HeaderSlot& slot, int from, MPI_Request* request) const {
  MPI_Irecv(&slot, sizeof slot, MPI_BYTE, from, kHeaderTag, comm_, request);
}

void MessageChannel::send_payload(const void* data, std::uint64_t bytes, int to,
                                  MPI_Request requests[2]) const {
  const auto units = static_cast<int>(bytes / kUnit);
  const auto tail = static_cast<int>(bytes % kUnit);
  requests[0] = requests[1] = MPI_REQUEST_NULL;
  const auto* p = static_cast<const char*>(data);
  if (units > 0) MPI_Isend(p, units, unit_, to, kPayloadTag, comm_, &requests[0]);
  if (tail > 0)
    MPI_Isend(p + (bytes - static_cast<std::uint64_t>(tail)), tail, MPI_BYTE, to, kPayloadTag,
              comm_, &requests[1]);
}

void MessageChannel::receive_payload(void* data, std::uint64_t bytes, int from,
                                     MPI_Request requests[2]) const {
  const auto units = static_cast<int>(bytes / kUnit);
  const auto tail = static_cast<int>(bytes % kUnit);
  requests[0] = requests[1] = MPI_REQUEST_NULL;
  auto* p = static_cast<char*>(data);
  if (units > 0) MPI_Irecv(p, units, unit_, from, kPayloadTag, comm_, &requests[0]);
  if (tail > 0)
    MPI_Irecv(p + (bytes - static_cast<std::uint64_t>(tail)), tail, MPI_BYTE, from, kPayloadTag,
              comm_, &requests[1]);
}

void MessageChannel::send_credit(const CreditMessage& credit, int to, MPI_Request* request) const {
  int bytes = static_cast<int>(offsetof(CreditMessage, first_failure));
  if (credit.store_failures > 0) {
    bytes += static_cast<int>(strnlen(credit.first_failure, sizeof credit.first_failure - 1)) + 1;
  }
  MPI_Isend(&credit, bytes, MPI_BYTE, to, kCreditTag, comm_, request);
}

void MessageChannel::receive_credit(CreditMessage& credit, int from, MPI_Request* request) const {
  MPI_Irecv(&credit, static_cast<int>(sizeof credit), MPI_BYTE, from, kCreditTag, comm_, request);
}

bool test_all(MPI_Request* requests, int count) {
  int done = 0;
  MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
  return done != 0;
}

}  // namespace ecluse
