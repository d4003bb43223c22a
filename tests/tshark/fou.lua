-- SPDX-License-Identifier: BSD-3-Clause
-- Wireshark/tshark dissector for Foo-over-UDP: the UDP payload on a FOU port
-- is an IP protocol (4 IPv4, 41 IPv6, 47 GRE) with no header of its own.
-- tshark 4.0's decode-as reads it too (-d udp.port==5555,ip, likewise ipv6
-- and gre: doc/capture.md); this script names the FOU layer in the decode
-- and takes every port:protocol pair of a test in one preference.
--   tshark -X lua_script:fou.lua -o "fou.ports:5555:4,5556:47,5557:41" -r x.pcap
-- A pair UDPPORT:gue decodes the port as GUE (draft-ietf-intarea-gue), for
-- which tshark 4.0 has no dissector: the header's fields as gue.*, then the
-- protocol it names; version 1 is IPv4 or IPv6 by the first nibble.
local fou = Proto("fou", "Foo-over-UDP")
fou.prefs.ports = Pref.string("ports", "5555:4,5556:47,5557:41",
                              "UDPPORT:IPPROTO or UDPPORT:gue pairs, comma separated")
local gue = Proto("gue", "Generic UDP Encapsulation")
local gf = {
    version = ProtoField.uint8("gue.version", "Version", base.DEC, nil, 0xc0),
    control = ProtoField.uint8("gue.control", "Control message", base.DEC, nil, 0x20),
    hlen = ProtoField.uint8("gue.hlen", "Header length (32-bit words)", base.DEC, nil, 0x1f),
    proto = ProtoField.uint8("gue.proto", "Protocol / control type", base.DEC),
    flags = ProtoField.uint16("gue.flags", "Flags", base.HEX),
    fields = ProtoField.bytes("gue.fields", "Optional fields"),
}
gue.fields = { gf.version, gf.control, gf.hlen, gf.proto, gf.flags, gf.fields }

local ipproto = DissectorTable.get("ip.proto")
local udp_port = DissectorTable.get("udp.port")
local registered = {}

local function register()
    for _, port in ipairs(registered) do
        udp_port:remove(port, fou)
    end
    registered = {}
    for port, proto in string.gmatch(fou.prefs.ports, "(%d+):(%w+)") do
        port = tonumber(port)
        udp_port:add(port, proto == "gue" and gue or fou)
        registered[#registered + 1] = port
    end
end

function gue.dissector(tvb, pinfo, tree)
    if tvb:len() < 1 then
        return 0
    end
    local b0 = tvb(0, 1):uint()
    local version = math.floor(b0 / 64)
    local sub = tree:add(gue, tvb(), "Generic UDP Encapsulation")
    sub:add(gf.version, tvb(0, 1))
    if version == 1 then
        local nibble = math.floor(b0 / 16)
        local d = ipproto:get_dissector(nibble == 4 and 4 or nibble == 6 and 41 or 255)
        if d == nil then
            return 1
        end
        return d:call(tvb, pinfo, tree)
    end
    if version ~= 0 or tvb:len() < 4 then
        return 1
    end
    local hdr = 4 + 4 * (b0 % 32)
    sub:add(gf.control, tvb(0, 1))
    sub:add(gf.hlen, tvb(0, 1))
    sub:add(gf.proto, tvb(1, 1))
    sub:add(gf.flags, tvb(2, 2))
    if hdr > tvb:len() then
        return 4
    end
    if hdr > 4 then
        sub:add(gf.fields, tvb(4, hdr - 4))
    end
    if math.floor(b0 / 32) % 2 == 1 or hdr == tvb:len() then
        return hdr
    end
    local d = ipproto:get_dissector(tvb(1, 1):uint())
    if d == nil then
        return hdr
    end
    return hdr + d:call(tvb(hdr):tvb(), pinfo, tree)
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
