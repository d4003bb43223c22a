-- SPDX-License-Identifier: BSD-3-Clause
-- Wireshark/tshark dissector for Foo-over-UDP: the UDP payload on a FOU port
-- is an IP protocol (4 IPv4, 41 IPv6, 47 GRE) with no header of its own.
-- tshark 4.0's decode-as reads it too (-d udp.port==5555,ip, likewise ipv6
-- and gre: doc/capture.md); this script names the FOU layer in the decode
-- and takes every port:protocol pair of a test in one preference.
--   tshark -X lua_script:fou.lua -o "fou.ports:5555:4,5556:47,5557:41" -r x.pcap
local fou = Proto("fou", "Foo-over-UDP")
fou.prefs.ports = Pref.string("ports", "5555:4,5556:47,5557:41",
                              "UDPPORT:IPPROTO pairs, comma separated")

local ipproto = DissectorTable.get("ip.proto")
local udp_port = DissectorTable.get("udp.port")
local registered = {}

local function register()
    for _, port in ipairs(registered) do
        udp_port:remove(port, fou)
    end
    registered = {}
    for port, proto in string.gmatch(fou.prefs.ports, "(%d+):(%d+)") do
        port = tonumber(port)
        udp_port:add(port, fou)
        registered[#registered + 1] = port
    end
end

function fou.dissector(tvb, pinfo, tree)
    local proto
    for port, p in string.gmatch(fou.prefs.ports, "(%d+):(%d+)") do
        if tonumber(port) == pinfo.dst_port then
            proto = tonumber(p)
        end
    end
    if proto == nil then
        return 0
    end
    local sub = tree:add(fou, tvb(), "Foo-over-UDP, IP protocol " .. proto)
    local d = ipproto:get_dissector(proto)
    if d == nil then
        return 0
    end
    return d:call(tvb, pinfo, tree)
end

function fou.prefs_changed()
    register()
end

register()
