# tools/embed.cmake — turns a text file into a C string constant (used to embed
# codegen-cuda/kg_emu.h into the library so the emulator needs no install path).
file(READ ${IN} content)
string(REPLACE "\\" "\\\\" content "${content}")
string(REPLACE "\"" "\\\"" content "${content}")
string(REPLACE "\n" "\\n\"\n\"" content "${content}")
file(WRITE ${OUT} "/* generated from ${IN}; do not edit */\nconst char ${SYM}[] =\n\"${content}\";\n")
