# SPDX-License-Identifier: MIT
# bash completion for pidns-tutor(1)                       -*- shell-script -*-
#
# Completes the options, a directory after --lessons, paths after --roster, and after --auto the
# word "all" and the lesson names (the file names of NN-name.adoc without
# .adoc) found in the directory the program itself would read: the one given
# with --lessons on the same line, else the installed DATADIR/lessons next to
# the binary, else lessons/ of a source tree (for build/pidns-tutor).
# Installed as $(PREFIX)/share/bash-completion/completions/pidns-tutor.

_pidns_tutor_lessons_dir()
{
    local i bin dir=
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        case ${COMP_WORDS[i]} in
        --lessons)
            if [[ ${COMP_WORDS[i + 1]} == = ]]; then
                dir=${COMP_WORDS[i + 2]}
            else
                dir=${COMP_WORDS[i + 1]}
            fi
            ;;
        --lessons=*) dir=${COMP_WORDS[i]#--lessons=} ;;
        esac
    done
    if [[ -n $dir ]]; then
        printf '%s\n' "${dir/#\~/$HOME}"
        return
    fi
    bin=$(command -v -- "${COMP_WORDS[0]}" 2>/dev/null) || return
    bin=${bin%/*}
    for dir in "$bin/../share/pidns-tutor/lessons" "$bin/../lessons"; do
        if [[ -d $dir ]]; then
            printf '%s\n' "$dir"
            return
        fi
    done
}

_pidns_tutor_lesson_names()
{
    local dir file
    dir=$(_pidns_tutor_lessons_dir)
    printf '%s\n' all
    [[ -n $dir && -d $dir ]] || return
    for file in "$dir"/[0-9]*.adoc; do
        [[ -f $file ]] || continue
        file=${file##*/}
        printf '%s\n' "${file%.adoc}"
    done
}

_pidns_tutor()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local options='--auto --present --lessons --doctor --no-color --user-namespace --roster --csv --help --version -h -V'

    # "--auto=x" is split by bash into "--auto" "=" "x".
    if [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cur=
    elif [[ $prev == = && COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    case $prev in
    --lessons)
        # Mark directories with a slash, as file completion does.
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        return
        ;;
    --present)
        COMPREPLY=($(compgen -W "$(_pidns_tutor_lesson_names | sed 's/^all$//')" -- "$cur"))
        return
        ;;
    --auto)
        COMPREPLY=($(compgen -W "$(_pidns_tutor_lesson_names)" -- "$cur"))
        return
        ;;
    esac
    # After --roster, the homes, state directories or progress files to read.
    if [[ $cur != -* && " ${COMP_WORDS[*]:1:COMP_CWORD-1} " == *" --roster "* ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
}

complete -F _pidns_tutor pidns-tutor
