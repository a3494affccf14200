#pragma once
/**
 * @file printable.h
 * Text from an input file made fit for a one-line error message.
 */
#include <string>
#include <string_view>

namespace vmcap {

/**
 * `s` with every control character (bytes 0x00-0x1f and 0x7f: a NUL, a newline, a terminal
 * escape in an id or a line of an input file) shown as \xNN, lowercase hex, as the CLI prints
 * messages (cli/main.cpp). Messages that quote input must pass it through this before it reaches
 * an exception: the CLI prints what() as a C string, so a NUL would end the message early. Other
 * bytes (UTF-8 included) are kept. O(|s|).
 */
inline std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            static constexpr const char* kHex = "0123456789abcdef";
            out += "\\x";
            out += kHex[u >> 4];
            out += kHex[u & 15];
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace vmcap
