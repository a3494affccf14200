#include "instances/network.h"

namespace vmcap {

int first_unreachable(int switch_count, const std::vector<NetLink>& links, const std::vector<int>& attached) {
    if (attached.empty()) return -1;
    std::vector<std::vector<int>> adj(static_cast<std::size_t>(switch_count));
    for (const NetLink& l : links) {
        adj[l.a].push_back(l.b);
        adj[l.b].push_back(l.a);
    }
    std::vector<char> seen(adj.size(), 0);
    std::vector<int> stack = {attached[0]};
    seen[attached[0]] = 1;
    while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        for (const int v : adj[u])
            if (!seen[v]) {
                seen[v] = 1;
                stack.push_back(v);
            }
    }
    for (std::size_t i = 0; i < attached.size(); ++i)
        if (!seen[attached[i]]) return static_cast<int>(i);
    return -1;
}

}  // namespace vmcap
