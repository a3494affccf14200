#include "evaluators/closed_forms/capacity_vectors.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include "evaluators/closed_forms/target_clones.h"

namespace vmcap {

MagicDivisor MagicDivisor::make(Amount d) {
    if (d < 1) throw std::invalid_argument("MagicDivisor: divisor " + std::to_string(d) + " is not positive");
    __extension__ typedef unsigned __int128 U128;
    const auto ud = static_cast<std::uint64_t>(d);
    MagicDivisor m;
    m.shift = ud == 1 ? 0 : 64 - std::countl_zero(ud - 1);  // ceil(log2 d), 0..63
    const U128 num = U128{1} << (63 + m.shift);
    m.magic = static_cast<std::uint64_t>((num + ud - 1) / ud);  // ceil(2^(63+shift) / d) < 2^64
    if (m.shift <= 32) {
        const U128 num31 = U128{1} << (31 + m.shift);
        m.magic31 = static_cast<std::uint64_t>((num31 + ud - 1) / ud);  // ceil(2^(31+shift) / d) < 2^32
        m.shift31 = 31 + m.shift;
    } else {  // d > 2^32 > x: the quotient is 0
        m.magic31 = 0;
        m.shift31 = 0;
    }
    return m;
}

CapacityVectors::CapacityVectors(const Amount* node_demand, int flavors, int resources) : F_(flavors), R_(resources) {
    if (flavors < 0) throw std::invalid_argument("CapacityVectors: negative flavor count");
    if (resources < 1 || resources > kMaxResources)
        throw std::invalid_argument("CapacityVectors: " + std::to_string(resources) + " resources; expected 1.." +
                                    std::to_string(kMaxResources));
    demand_.resize(F_, R_);
    first_.reserve(static_cast<std::size_t>(F_) + 1);
    for (int f = 0; f < F_; ++f) {
        first_.push_back(static_cast<int>(terms_.size()));
        for (int r = 0; r < R_; ++r) {
            const Amount d = node_demand[static_cast<std::size_t>(f) * R_ + r];
            demand_(f, r) = d;
            if (d < 0)
                throw std::invalid_argument("CapacityVectors: flavor " + std::to_string(f) + " has negative demand in resource " +
                                            std::to_string(r));
            if (d > 0) terms_.push_back(Term{r, MagicDivisor::make(d)});
        }
        if (static_cast<int>(terms_.size()) == first_.back())
            throw std::invalid_argument("CapacityVectors: flavor " + std::to_string(f) + " has zero demand in every resource");
    }
    first_.push_back(static_cast<int>(terms_.size()));
    // Quotient columns shared by compute(): one per distinct (resource, demand), in first-use order.
    std::vector<std::pair<int, Amount>> seen;
    for (int f = 0; f < F_; ++f)
        for (int t = first_[f]; t < first_[f + 1]; ++t) {
            const std::pair<int, Amount> key{terms_[t].resource, demand_(f, terms_[t].resource)};
            std::size_t c = 0;
            while (c < seen.size() && seen[c] != key) ++c;
            if (c == seen.size()) {
                seen.push_back(key);
                columns_.push_back(terms_[t]);
            }
            column_of_term_.push_back(static_cast<int>(c));
        }
}

CapacityVectors CapacityVectors::for_flavors(const Problem& problem, const std::vector<int>& flavor_indices) {
    const int R = problem.num_resources();
    std::vector<Amount> d;
    d.reserve(flavor_indices.size() * static_cast<std::size_t>(R));
    for (int f : flavor_indices) {
        if (f < 0 || f >= static_cast<int>(problem.flavors.size()))
            throw std::out_of_range("CapacityVectors: flavor index " + std::to_string(f) + " outside the problem");
        const auto& nd = problem.flavors[f].node_demand;
        if (static_cast<int>(nd.size()) != R)
            throw std::invalid_argument("CapacityVectors: flavor '" + problem.flavors[f].name +
                                        "' has no node demand (problem not finalized)");
        d.insert(d.end(), nd.begin(), nd.end());
    }
    return CapacityVectors(d.data(), static_cast<int>(flavor_indices.size()), R);
}

CapacityVectors CapacityVectors::for_all_flavors(const Problem& problem) {
    std::vector<int> all(problem.flavors.size());
    for (std::size_t f = 0; f < all.size(); ++f) all[f] = static_cast<int>(f);
    return for_flavors(problem, all);
}

namespace {

/**
 * b = min over the terms of floor(free.col(r) / d) on a host of N nodes (Eigen::Dynamic: any).
 * Column r of the row-major nodes x R free matrix is a strided view; unaryExpr applies the
 * reciprocal (Narrow: divide31, valid when every free amount is below 2^31). With N fixed (4 and
 * 8, the common pNUMA counts) Eigen unrolls the node loop.
 */
template <int N, bool Narrow, class Term>
inline void slots(const Term* t, const Term* end, const Amount* free, int nodes, int R, Count* b_out) {
    using FreeMap = Eigen::Map<const Eigen::Array<Amount, N, Eigen::Dynamic, Eigen::RowMajor>>;
    using SlotsMap = Eigen::Map<Eigen::Array<Count, N, 1>>;
    const FreeMap fr(free, nodes, R);
    SlotsMap b(b_out, nodes);
    auto quotient = [](const MagicDivisor& d) { return [d](Amount x) { return Narrow ? d.divide31(x) : d.divide(x); }; };
    b = fr.col(t->resource).unaryExpr(quotient(t->div));
    for (++t; t < end; ++t) b = b.min(fr.col(t->resource).unaryExpr(quotient(t->div)));
}

/** True if every one of the `count` amounts is below 2^31 (and none is negative). */
inline bool all_narrow(const Amount* free, int count) {
    std::uint64_t acc = 0;
    for (int i = 0; i < count; ++i) acc |= static_cast<std::uint64_t>(free[i]);
    return (acc >> 31) == 0;
}

template <bool Narrow, class Term>
inline void slots_any(const Term* t, const Term* end, const Amount* free, int nodes, int R, Count* b_out) {
    switch (nodes) {
        case 4: return slots<4, Narrow>(t, end, free, nodes, R, b_out);
        case 8: return slots<8, Narrow>(t, end, free, nodes, R, b_out);
        default: return slots<Eigen::Dynamic, Narrow>(t, end, free, nodes, R, b_out);
    }
}

}  // namespace

void CapacityVectors::compute_flavor(int f, const Amount* free, int nodes, Count* b_out) const {
    const Term* t = terms_.data() + first_[f];
    const Term* end = terms_.data() + first_[f + 1];
    if (all_narrow(free, nodes * R_))
        slots_any<true>(t, end, free, nodes, R_, b_out);
    else
        slots_any<false>(t, end, free, nodes, R_, b_out);
}

namespace {

/** out = floor(free.col(t.resource) / d) over N nodes (quotient column of compute()). */
template <int N, bool Narrow, class Term>
inline void quotient_column(const Term& t, const Amount* free, int nodes, int R, Count* out) {
    using FreeMap = Eigen::Map<const Eigen::Array<Amount, N, Eigen::Dynamic, Eigen::RowMajor>>;
    Eigen::Map<Eigen::Array<Count, N, 1>> q(out, nodes);
    q = FreeMap(free, nodes, R).col(t.resource).unaryExpr([d = t.div](Amount x) { return Narrow ? d.divide31(x) : d.divide(x); });
}

/** b = coefficient-wise min of the quotient columns cols[0..count) of `scratch` (N nodes each). */
template <int N>
inline void min_of_columns(const int* cols, int count, const Count* scratch, int nodes, Count* b_out) {
    using Col = Eigen::Map<const Eigen::Array<Count, N, 1>>;
    Eigen::Map<Eigen::Array<Count, N, 1>> b(b_out, nodes);
    b = Col(scratch + static_cast<std::ptrdiff_t>(cols[0]) * nodes, nodes);
    for (int j = 1; j < count; ++j) b = b.min(Col(scratch + static_cast<std::ptrdiff_t>(cols[j]) * nodes, nodes));
}

template <int N, bool Narrow, class Term>
void compute_shared(const std::vector<Term>& columns, const std::vector<int>& first, const std::vector<int>& column_of_term, int F,
                    const Amount* free, int nodes, int R, Count* b_out) {
    Count scratch[CapacityVectors::kScratch];
    for (std::size_t c = 0; c < columns.size(); ++c)
        quotient_column<N, Narrow>(columns[c], free, nodes, R, scratch + static_cast<std::ptrdiff_t>(c) * nodes);
    for (int f = 0; f < F; ++f)
        min_of_columns<N>(column_of_term.data() + first[f], first[f + 1] - first[f], scratch, nodes,
                          b_out + static_cast<std::ptrdiff_t>(f) * nodes);
}

}  // namespace

void CapacityVectors::compute(const Amount* free, int nodes, Count* b_out) const {
    const bool narrow = all_narrow(free, nodes * R_);  // once for all flavors
    const bool share = columns_.size() < terms_.size() && static_cast<long>(columns_.size()) * nodes <= kScratch;
    if (!share) {
        for (int f = 0; f < F_; ++f) {
            const Term* t = terms_.data() + first_[f];
            const Term* end = terms_.data() + first_[f + 1];
            Count* b = b_out + static_cast<std::size_t>(f) * nodes;
            if (narrow)
                slots_any<true>(t, end, free, nodes, R_, b);
            else
                slots_any<false>(t, end, free, nodes, R_, b);
        }
        return;
    }
    auto run = [&]<int N>() {
        if (narrow)
            compute_shared<N, true>(columns_, first_, column_of_term_, F_, free, nodes, R_, b_out);
        else
            compute_shared<N, false>(columns_, first_, column_of_term_, F_, free, nodes, R_, b_out);
    };
    switch (nodes) {
        case 4: return run.template operator()<4>();
        case 8: return run.template operator()<8>();
        default: return run.template operator()<Eigen::Dynamic>();
    }
}

namespace {

constexpr std::size_t kHostBlock = 256;

/**
 * out[l] = min over j < terms of floor(rows[j][l] / div[j]) for l < len, every rows[j][l] < 2^31:
 * divide31 (magic31 < 2^32, so the product is one 32x32->64 multiply per lane) and the min in
 * 32-bit lanes; the quotient is < 2^31.
 */
VMCAP_BATCH_CLONES void min_quotients_narrow(const Amount* const* rows, const MagicDivisor* div, int terms, std::size_t len,
                                             Count* __restrict out) {
    std::int32_t acc[kHostBlock];
    {
        const Amount* __restrict x = rows[0];
        const std::uint64_t m = static_cast<std::uint32_t>(div[0].magic31);
        const int sh = div[0].shift31;
        for (std::size_t l = 0; l < len; ++l)
            acc[l] = static_cast<std::int32_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(x[l])) * m) >> sh);
    }
    for (int j = 1; j < terms; ++j) {
        const Amount* __restrict x = rows[j];
        const std::uint64_t m = static_cast<std::uint32_t>(div[j].magic31);
        const int sh = div[j].shift31;
        for (std::size_t l = 0; l < len; ++l)
            acc[l] = std::min(acc[l], static_cast<std::int32_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(x[l])) * m) >> sh));
    }
    for (std::size_t l = 0; l < len; ++l) out[l] = acc[l];
}

/** As min_quotients_narrow for any non-negative amounts (exact 128-bit divide; scalar). */
void min_quotients_wide(const Amount* const* rows, const MagicDivisor* div, int terms, std::size_t len, Count* out) {
    for (std::size_t l = 0; l < len; ++l) {
        Count q = div[0].divide(rows[0][l]);
        for (int j = 1; j < terms; ++j) q = std::min(q, div[j].divide(rows[j][l]));
        out[l] = q;
    }
}

/** True if every amount of rows [0, count_rows) x [0, len) (row r at free + r * stride) is below 2^31. */
VMCAP_BATCH_CLONES bool all_narrow_block(const Amount* free, std::size_t stride, int count_rows, std::size_t len) {
    std::uint64_t acc = 0;
    for (int r = 0; r < count_rows; ++r) {
        const Amount* __restrict x = free + static_cast<std::size_t>(r) * stride;
        for (std::size_t l = 0; l < len; ++l) acc |= static_cast<std::uint64_t>(x[l]);
    }
    return (acc >> 31) == 0;
}

}  // namespace

void CapacityVectors::compute_batch(const Amount* free, std::size_t free_stride, std::size_t count, int nodes, Count* b_out,
                                    std::size_t b_stride) const {
    const Amount* rows[kMaxResources];
    MagicDivisor divs[kMaxResources];
    for (std::size_t t0 = 0; t0 < count; t0 += kHostBlock) {
        const std::size_t len = std::min(kHostBlock, count - t0);
        const bool narrow = all_narrow_block(free + t0, free_stride, nodes * R_, len);
        for (int f = 0; f < F_; ++f) {
            const int terms = first_[f + 1] - first_[f];
            for (int j = 0; j < terms; ++j) divs[j] = terms_[first_[f] + j].div;
            for (int i = 0; i < nodes; ++i) {
                for (int j = 0; j < terms; ++j)
                    rows[j] = free + (static_cast<std::size_t>(i) * R_ + terms_[first_[f] + j].resource) * free_stride + t0;
                Count* out = b_out + (static_cast<std::size_t>(f) * nodes + i) * b_stride + t0;
                if (narrow)
                    min_quotients_narrow(rows, divs, terms, len, out);
                else
                    min_quotients_wide(rows, divs, terms, len, out);
            }
        }
    }
}

}  // namespace vmcap
