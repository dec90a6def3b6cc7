# tools/embed.cmake — turns a text file into a NUL-terminated C char array (used to
# embed codegen-cuda/kg_emu.h into the library and check/oracle.py into the check kit
# so they need no install path). Emitted as byte values: ISO C caps string literals at 4095 chars.
# IN2, when given, is appended to IN (kg_emu.h, then kg_emu_tc.h: one header text; kg_emu_rt.c,
# then kg_emu_tc.c: the emulator's runtime).
set(content "")
foreach(f ${IN} ${IN2})
  file(READ ${f} part HEX)
  string(APPEND content "${part}")
endforeach()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "(char)0x\\1," bytes "${content}")
string(REGEX REPLACE "(\\(char\\)0x..,\\(char\\)0x..,\\(char\\)0x..,\\(char\\)0x..,\\(char\\)0x..,\\(char\\)0x..,\\(char\\)0x..,\\(char\\)0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT} "/* generated from ${IN}; do not edit */\nconst char ${SYM}[] = {\n${bytes}0x00};\n")
